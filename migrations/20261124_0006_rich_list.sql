-- Rich list (spec/indexer.md §8.3, issue 11): each account's balance per denom as of the rich_list
-- stage's checkpoint (stream 'rich_list'), written in the same transaction as it. Denoms are
-- lower-cased: the ERC20 contract (0x…) on EVM, the bank denom on Move and Wasm.
CREATE TABLE rich_list (
  denom      text NOT NULL,
  account_id bigint NOT NULL,
  amount     numeric NOT NULL,
  PRIMARY KEY (denom, account_id)
);
-- The route's order (amount, then account) for holders only; zero balances stay as rows.
CREATE INDEX rich_list_holders_idx ON rich_list (denom, amount DESC, account_id DESC) WHERE amount > 0;

-- Holders (amount > 0) per denom, kept with the rows, so a list's total is one row read.
CREATE TABLE rich_list_holders (
  denom   text PRIMARY KEY,
  holders bigint NOT NULL
);

-- Other spellings of a stored denom that ingest learnt from the node (EVM: the bank denom of an
-- ERC20 contract; Move: the move/<metadata> form of a bank denom), all lower-cased: the API
-- resolves them without calling the node.
CREATE TABLE rich_list_denom (
  alias text PRIMARY KEY,
  denom text NOT NULL
);
