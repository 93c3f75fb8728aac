-- Core schema: chain identity, checkpoint, blocks, Cosmos txs, EVM txs, dictionaries and edges.
-- Rendered JSON is stored as text, exactly as the API sends it (no re-serialisation on read).

CREATE TABLE chain_meta (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  chain_id   text NOT NULL,
  vm_type    text NOT NULL CHECK (vm_type IN ('move', 'wasm', 'evm')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per stream ('blocks' for the core pipeline; extensions add their own).
-- Updated in the same transaction as the rows it covers.
CREATE TABLE checkpoint (
  stream       text PRIMARY KEY,
  height       bigint NOT NULL,
  block_hash   bytea,
  tx_sequence  bigint NOT NULL DEFAULT 0,
  evm_sequence bigint NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE block (
  height        bigint PRIMARY KEY,
  hash          bytea NOT NULL,
  "timestamp"   timestamptz NOT NULL,
  block_time_ms bigint NOT NULL,
  proposer      text NOT NULL,
  gas_used      bigint NOT NULL,
  gas_wanted    bigint NOT NULL,
  tx_count      integer NOT NULL,
  total_fee     text NOT NULL
);

-- Proposer operator address -> moniker, resolved once by ingest so the API never calls the node.
CREATE TABLE validator (
  operator_address text PRIMARY KEY,
  moniker          text NOT NULL
);

CREATE TABLE account_dict (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account bytea NOT NULL UNIQUE
);

CREATE TABLE msg_type_dict (
  id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  msg_type text NOT NULL UNIQUE
);

-- sequence: gapless from 1, one per Cosmos tx in chain order.
CREATE TABLE tx (
  sequence  bigint PRIMARY KEY,
  hash      bytea NOT NULL,
  height    bigint NOT NULL,
  signer_id bigint NOT NULL,
  data      text NOT NULL
);
CREATE INDEX tx_hash_idx ON tx (hash);
CREATE INDEX tx_height_idx ON tx (height, sequence);

CREATE TABLE tx_accounts (
  account_id bigint NOT NULL,
  sequence   bigint NOT NULL,
  signer     boolean NOT NULL,
  PRIMARY KEY (account_id, sequence)
);
CREATE INDEX tx_accounts_signer_idx ON tx_accounts (account_id, sequence) WHERE signer;

CREATE TABLE tx_msg_types (
  msg_type_id integer NOT NULL,
  sequence    bigint NOT NULL,
  PRIMARY KEY (msg_type_id, sequence)
);

-- EVM rollups: one row per receipt, own gapless sequence.
CREATE TABLE evm_tx (
  sequence  bigint PRIMARY KEY,
  hash      bytea NOT NULL,
  height    bigint NOT NULL,
  signer_id bigint NOT NULL,
  data      text NOT NULL
);
CREATE INDEX evm_tx_hash_idx ON evm_tx (hash);
CREATE INDEX evm_tx_height_idx ON evm_tx (height, sequence);

CREATE TABLE evm_tx_accounts (
  account_id bigint NOT NULL,
  sequence   bigint NOT NULL,
  signer     boolean NOT NULL,
  PRIMARY KEY (account_id, sequence)
);
CREATE INDEX evm_tx_accounts_signer_idx ON evm_tx_accounts (account_id, sequence) WHERE signer;
