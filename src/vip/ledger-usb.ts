import { AppError } from '../shared/errors.js';
import type { ApduTransport } from './ledger.js';

/**
 * USB HID access to a Ledger, loaded only when `--ledger` is used: the node-hid based transports
 * are native modules, so they are not a dependency of this package. Either one works; the
 * "noevents" flavour does not watch for USB hot-plug events.
 */
export const LEDGER_USB_PACKAGES = [
  '@ledgerhq/hw-transport-node-hid-noevents',
  '@ledgerhq/hw-transport-node-hid',
] as const;

const INSTALL_HINT =
  `install Ledger USB support next to rollup-indexer: npm install ${LEDGER_USB_PACKAGES[0]} ` +
  `(native: without a downloadable prebuilt binary it compiles, needing libusb-1.0-0-dev, ` +
  `libudev-dev and a C++ toolchain on Linux)`;

interface HidTransport {
  exchange(apdu: Buffer): Promise<Buffer>;
  close(): Promise<void>;
}
interface HidTransportClass {
  open(descriptor: string | undefined): Promise<HidTransport>;
}

/** ESM or CJS default export of a transport module, whichever the package ships. */
function transportClass(mod: unknown): HidTransportClass | undefined {
  const candidates = [mod, (mod as { default?: unknown }).default];
  candidates.push((candidates[1] as { default?: unknown } | undefined)?.default);
  return candidates.find((c): c is HidTransportClass => typeof (c as HidTransportClass)?.open === 'function');
}

/** Loads the first installed package; `load` is injectable for tests (default: dynamic import). */
export async function loadHidTransport(
  load: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<HidTransportClass> {
  for (const name of LEDGER_USB_PACKAGES) {
    let mod: unknown;
    try {
      mod = await load(name);
    } catch {
      continue;
    }
    const cls = transportClass(mod);
    if (cls) return cls;
  }
  throw new AppError('ledger_unavailable', `Ledger USB support is not installed: ${INSTALL_HINT}`);
}

/** Opens the first Ledger on USB. Typed `ledger_unavailable` errors say what the operator can do. */
export async function openLedgerUsb(load?: (name: string) => Promise<unknown>): Promise<ApduTransport> {
  const Transport = await loadHidTransport(load);
  let hid: HidTransport;
  try {
    hid = await Transport.open(undefined);
  } catch (err) {
    throw new AppError(
      'ledger_unavailable',
      'no Ledger found on USB: connect it, unlock it and open the Ethereum app ' +
        `(on Linux, Ledger's udev rules must allow access) — ${(err as Error).message}`,
      { cause: err },
    );
  }
  return {
    exchange: async (apdu) => Uint8Array.from(await hid.exchange(Buffer.from(apdu))),
    close: () => hid.close(),
  };
}
