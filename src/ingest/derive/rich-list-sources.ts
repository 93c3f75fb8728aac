import { accountBytesFromString, toBech32, tryAccountBytes } from '../../shared/address.js';
import type { BankState } from '../../node/bank-state.js';
import type { EvmClient } from '../../node/evm.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from '../../node/retry.js';
import type { RawBlock } from '../../node/types.js';
import type { BalanceRow, DenomAlias } from '../../store/writers/rich-list-writer.js';
import { bankDeltas, fungibleAssetDeltas, withDenoms, type AssetDelta } from '../collect/rich-list-bank.js';
import { erc20Deltas, sumDeltas, type BalanceDelta } from '../collect/rich-list-deltas.js';

/** Where one VM's balances come from: its events, and the node's state to start from or correct by. */
export interface BalanceSource {
  /**
   * Balance changes in one block's events (tx results and finalize-block events), summed per asset
   * and account, with assets as the events name them: a pure function of the block, so it can be
   * taken as the block stream fetches the block and kept until the stage reaches that height.
   */
  extract(block: RawBlock): AssetDelta[];
  /** Extracted changes under their stored denoms (may ask the node how an asset is named). */
  deltas(extracted: readonly AssetDelta[]): Promise<BalanceDelta[]>;
  /** Every spelling of a denom learnt from the node so far (stored with each batch, as they come). */
  aliases(): DenomAlias[];
  /** The node's balances of these pairs (account as 20/32-byte hex) at a height. */
  balancesAt(pairs: readonly { denom: string; account: string }[], height: number): Promise<bigint[]>;
  /**
   * Every account's balances at a height, and the other spellings of their denoms; `whole` lists
   * the accounts (hex) whose every holding the rows hold (none on EVM: bank balances cannot list
   * an ERC20-only token).
   */
  snapshot(height: number): Promise<{ rows: BalanceRow[]; aliases: DenomAlias[]; whole: string[] }>;
  /**
   * The total supply of a stored denom at a height, where the node can say (Move/Wasm: the bank
   * supply, which must list the denom; EVM: the token's `totalSupply()`); undefined otherwise.
   */
  supplyAt?(denom: string, height: number): Promise<bigint | undefined>;
  /**
   * Every holding (stored denom, amount; zeros left out) of each account (hex) at a height, where
   * the node can list them (bank balances: Move and Wasm); absent on EVM.
   */
  holdingsAt?(
    accounts: readonly string[],
    height: number,
  ): Promise<Array<Array<{ denom: string; amount: bigint }>>>;
  /**
   * Accounts (hex) that are never holders: on Move and Wasm the module accounts with the `minter`
   * or `burner` permission (docs/ingest.md §8.3), none on EVM. Read from the node once and kept;
   * `reread` asks again, so a module account a chain upgrade adds is learnt too. The stage leaves
   * them out; `deltas` and `snapshot` still list them.
   */
  excluded(reread: boolean): Promise<ReadonlySet<string>>;
  /**
   * The list never changes (EVM: always empty), so `reread` would read the same: a batch then
   * skips looking for accounts with no stored balance (a statement over every stored denom).
   */
  readonly exclusionsFixed?: boolean;
}

const eventsOf = (block: RawBlock) => [
  ...block.txResults.flatMap((r) => r.events),
  ...block.finalizeBlockEvents,
];

/** Changes summed per (asset, account): what a block keeps, fewer rows than its events. */
function summedAssets(deltas: readonly AssetDelta[]): AssetDelta[] {
  const summed = sumDeltas(deltas.map((d) => ({ denom: d.asset, account: d.account, amount: d.amount })));
  return [...summed.values()].map((d) => ({ asset: d.denom, account: d.account, amount: d.amount }));
}

/**
 * The `extract` of a VM's balance source, apart from the source (it needs no node): a prepare
 * worker takes it from the blocks it fetches, for the rich-list stage on the main thread.
 */
export function balanceChangesOf(
  vm: 'move' | 'wasm' | 'evm',
  prefix: string,
): (block: RawBlock) => AssetDelta[] {
  if (vm === 'evm') {
    return (block) =>
      summedAssets(
        erc20Deltas(eventsOf(block)).map((d) => ({ asset: d.denom, account: d.account, amount: d.amount })),
      );
  }
  return (block) =>
    summedAssets(
      vm === 'wasm' ? bankDeltas(eventsOf(block), prefix) : fungibleAssetDeltas(eventsOf(block), prefix),
    );
}

/** Requests per batch of node look-ups. */
const LOOKUP_BATCH = 200;
const NO_ACCOUNT: ReadonlySet<string> = new Set();

/** Each address (bech32) with its bank balances at a height (batched by the bank state). */
async function balancesOfEach(bank: BankState, addresses: readonly string[], height: number) {
  const read = await bank.balancesOfEach(addresses, height);
  return addresses.map((address, i) => ({ address, balances: read[i]! }));
}

/**
 * EVM: ERC20 Transfer logs; balances and corrections from `balanceOf`; the snapshot maps each
 * bank denom to its ERC20 contract (`/minievm/evm/v1/contracts/by_denom`), and bank denoms become
 * the contract's aliases.
 */
export function createEvmBalanceSource(ctx: {
  evm: EvmClient;
  bank: BankState;
  prefix: string;
  signal?: AbortSignal;
  /** Backoff of each balanceOf batch before it fails the stage's fetch (default: INGEST_RETRY, 10 attempts). */
  policy?: RetryPolicy;
}): BalanceSource {
  const contracts = new Map<string, string | undefined>();
  const contractOf = async (denom: string) => {
    if (!contracts.has(denom)) contracts.set(denom, await ctx.bank.contractOfDenom(denom));
    return contracts.get(denom);
  };
  // A token first seen in the logs is asked for its bank denom once, so the route also takes the
  // bank spelling of tokens that appear after the start snapshot.
  const named = new Map<string, Promise<void>>();
  const aliases: DenomAlias[] = [];
  const learnDenomOf = (contract: string) => {
    let asked = named.get(contract);
    if (!asked) {
      asked = ctx.bank.denomOfContract(contract).then((denom) => {
        if (denom !== undefined && denom.toLowerCase() !== contract) {
          aliases.push({ alias: denom.toLowerCase(), denom: contract });
        }
      });
      // A failed look-up is asked again with the batch's retry.
      asked.catch(() => named.delete(contract));
      named.set(contract, asked);
    }
    return asked;
  };
  return {
    extract: balanceChangesOf('evm', ctx.prefix),
    async deltas(extracted) {
      for (const contract of new Set(extracted.map((d) => d.asset))) await learnDenomOf(contract);
      return withDenoms(extracted, (contract) => contract);
    },
    aliases: () => [...aliases],
    async balancesAt(pairs, height) {
      const out: bigint[] = [];
      for (let i = 0; i < pairs.length; i += LOOKUP_BATCH) {
        const chunk = pairs.slice(i, i + LOOKUP_BATCH).map((p) => ({ token: p.denom, account: p.account }));
        // Each batch is retried on its own: one flaky answer does not redo the others.
        const amounts = await withRetry(() => ctx.evm.erc20BalancesAt(chunk, height), {
          policy: ctx.policy ?? { ...INGEST_RETRY, maxAttempts: 10 },
          what: `balanceOf at ${height}`,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        out.push(...amounts);
      }
      return out;
    },
    async snapshot(height) {
      const rows: BalanceRow[] = [];
      const aliases = new Map<string, string>();
      for (const { address, balances } of await balancesOfEach(
        ctx.bank,
        await ctx.bank.accountsAt(height),
        height,
      )) {
        const account = accountBytesFromString(address, ctx.prefix);
        for (const b of balances) {
          const contract = b.denom.startsWith('0x') ? b.denom.toLowerCase() : await contractOf(b.denom);
          if (contract === undefined || b.amount === 0n) continue;
          rows.push({ denom: contract, account, amount: b.amount });
          if (contract !== b.denom.toLowerCase()) aliases.set(b.denom.toLowerCase(), contract);
        }
      }
      return { rows, aliases: [...aliases].map(([alias, denom]) => ({ alias, denom })), whole: [] };
    },
    supplyAt: async (contract, height) => (await ctx.evm.erc20SuppliesAt([contract], height))[0],
    // The reference keeps module accounts on EVM (docs/ingest.md §8.3: module accounts are holders there).
    excluded: async () => NO_ACCOUNT,
    exclusionsFixed: true,
  };
}

/**
 * Move: the stored denom of a fungible asset (its bank denom, else `move/<metadata>`), with the
 * aliases learnt on the way. One look-up per asset, shared by the blocks of a batch read at once;
 * a failed one is asked again.
 */
function moveAssetDenoms(bank: BankState, remember: (denom: string) => string) {
  const byMetadata = new Map<string, Promise<string>>();
  const aliases: DenomAlias[] = [];
  const learnDenomOf = async (full: string, metadata: string) => {
    const stored = remember((await bank.denomOfMetadata(metadata)) ?? `move/${full}`);
    for (const form of new Set([`move/${full}`, `move/${full.replace(/^0+/, '')}`])) {
      if (form !== stored) aliases.push({ alias: form, denom: stored });
    }
    // The reference stores an asset with 0 decimals and a symbol under lower(symbol) (docs/ingest.md §8.3 Move):
    // the weakest alias, since any asset may pick any symbol.
    const fa = await bank.fungibleAssetMetadata(metadata);
    if (fa?.decimals === 0 && fa.symbol !== '' && fa.symbol.toLowerCase() !== stored) {
      aliases.push({ alias: fa.symbol.toLowerCase(), denom: stored, bySymbol: true });
    }
    return stored;
  };
  const denomOfMetadata = (metadata: string) => {
    const full = metadata.replace(/^0x/, '').toLowerCase().padStart(64, '0');
    let stored = byMetadata.get(full);
    if (!stored) {
      stored = learnDenomOf(full, metadata);
      stored.catch(() => byMetadata.delete(full));
      byMetadata.set(full, stored);
    }
    return stored;
  };
  return { denomOfMetadata, aliases };
}

/** Every account's non-zero bank balances at a height; every account is read whole. */
async function bankSnapshot(
  ctx: { bank: BankState; prefix: string },
  remember: (denom: string) => string,
  height: number,
): Promise<{ rows: BalanceRow[]; aliases: DenomAlias[]; whole: string[] }> {
  const rows: BalanceRow[] = [];
  const whole: string[] = [];
  for (const { address, balances } of await balancesOfEach(
    ctx.bank,
    await ctx.bank.accountsAt(height),
    height,
  )) {
    const account = accountBytesFromString(address, ctx.prefix);
    whole.push(Buffer.from(account).toString('hex'));
    for (const b of balances) {
      if (b.amount > 0n) rows.push({ denom: remember(b.denom), account, amount: b.amount });
    }
  }
  return { rows, aliases: [], whole };
}

/**
 * Move and Wasm: balances from bank events (Wasm) or fungible-asset events (Move, the asset named
 * by its metadata address and stored under its bank denom from `/initia/move/v1/denom`, with
 * `move/<metadata>` as an alias, and `lower(symbol)` too for an asset with 0 decimals, the
 * reference's stored form); balances and the snapshot from the bank module. Denoms are stored
 * lower-cased; the node is asked in its own spelling.
 */
export function createBankBalanceSource(ctx: {
  vm: 'move' | 'wasm';
  bank: BankState;
  prefix: string;
}): BalanceSource {
  const spelling = new Map<string, string>();
  const remember = (denom: string) => {
    const stored = denom.toLowerCase();
    spelling.set(stored, denom);
    return stored;
  };
  const { denomOfMetadata, aliases } = moveAssetDenoms(ctx.bank, remember);
  const bech32Of = (hex: string) => toBech32(Buffer.from(hex, 'hex'), ctx.prefix);
  const modules = createModuleAccountSet(ctx.bank, ctx.prefix);
  /** The bank supply at the one height a run asks (its start), per stored denom. */
  let supply: { height: number; read: Promise<Map<string, bigint> | undefined> } | undefined;
  return {
    extract: balanceChangesOf(ctx.vm, ctx.prefix),
    async deltas(extracted) {
      if (ctx.vm === 'wasm') return withDenoms(extracted, remember);
      const names = new Map<string, string>();
      for (const asset of new Set(extracted.map((d) => d.asset)))
        names.set(asset, await denomOfMetadata(asset));
      return withDenoms(extracted, (asset) => names.get(asset)!);
    },
    aliases: () => [...aliases],
    async balancesAt(pairs, height) {
      const accounts = [...new Set(pairs.map((p) => p.account))];
      const held = await balancesOfEach(ctx.bank, accounts.map(bech32Of), height);
      const byAccount = new Map(
        accounts.map((a, i) => [a, new Map(held[i]!.balances.map((b) => [remember(b.denom), b.amount]))]),
      );
      return pairs.map((p) => byAccount.get(p.account)!.get(p.denom) ?? 0n);
    },
    snapshot: (height) => bankSnapshot(ctx, remember, height),
    // Only a denom the supply lists: another spelling of a listed one would pass for a zero supply.
    async supplyAt(denom, height) {
      if (supply?.height !== height) {
        const read = ctx.bank.supplyAt(height).then((coins) => coins && totalsOf(coins));
        read.catch(() => {
          if (supply?.read === read) supply = undefined;
        });
        supply = { height, read };
      }
      return (await supply.read)?.get(denom);
    },
    async holdingsAt(accounts, height) {
      const held = await balancesOfEach(ctx.bank, accounts.map(bech32Of), height);
      return held.map(({ balances }) =>
        balances.filter((b) => b.amount !== 0n).map((b) => ({ denom: remember(b.denom), amount: b.amount })),
      );
    },
    excluded: (reread) => modules.read(reread),
  };
}

/** Amounts summed per denom (lower case). */
function totalsOf(coins: readonly { denom: string; amount: bigint }[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const c of coins) {
    const key = c.denom.toLowerCase();
    totals.set(key, (totals.get(key) ?? 0n) + c.amount);
  }
  return totals;
}

/**
 * The minter/burner module accounts (docs/ingest.md §8.3: the module accounts with the
 * `minter` or `burner` permission), as account hex. The list changes only when a chain upgrade
 * adds a module, so it is read once and again only when asked; a failed read is not kept.
 */
function createModuleAccountSet(bank: BankState, prefix: string) {
  let current: Promise<ReadonlySet<string>> | undefined;
  const load = async (): Promise<ReadonlySet<string>> => {
    const accounts = await bank.moduleAccounts();
    const hex = accounts
      .filter((m) => m.permissions.includes('minter') || m.permissions.includes('burner'))
      .map((m) => tryAccountBytes(m.address, prefix))
      .filter((b) => b !== undefined)
      .map((b) => Buffer.from(b).toString('hex'));
    return new Set(hex);
  };
  return {
    read(reread: boolean): Promise<ReadonlySet<string>> {
      if (!current || reread) {
        const reading = load();
        reading.catch(() => {
          if (current === reading) current = undefined;
        });
        current = reading;
      }
      return current;
    },
  };
}
