import net from 'node:net';

/**
 * PostgreSQL's answers read into one reused buffer per connection (issue 24). A plain socket hands
 * every read over as a new 64 KB Buffer, and pg-protocol's parser copies a message split across two
 * reads into yet another one: on a 100-tx page (~660 KB) that is ~1.3 MB of new external memory,
 * which is what schedules V8's full mark-compact collections in the API process. Here the socket
 * reads into memory this connection owns (`net.Socket`'s `onread`), the bytes are cut into whole
 * protocol messages, and an incomplete message at the end of a read is moved to the front of the
 * buffer before the next read lands behind it.
 */

/**
 * One whole backend message: its code, where its body starts in `bytes`, and its length field (which
 * counts itself) — pg-protocol's `handlePacket` arguments. `bytes` is valid during the call only.
 */
export type MessageHandler = (code: number, bodyOffset: number, length: number, bytes: Buffer) => void;

const HEADER = 5; // code byte + int32 length (which counts itself, not the code)

/** Read size and the size the buffer returns to after holding one larger message. */
export const DEFAULT_READ_BUFFER = 256 * 1024;

export class MessageFramer {
  #buffer: Buffer;
  /** Bytes of an incomplete message kept at the front of #buffer. */
  #carry = 0;
  /** Set once the connection attaches its parser; messages before that cannot occur (nothing was sent). */
  onMessage: MessageHandler | undefined;

  constructor(readonly initialSize = DEFAULT_READ_BUFFER) {
    this.#buffer = Buffer.allocUnsafeSlow(initialSize);
  }

  /** Where the next socket read goes: behind the carried bytes. */
  readTarget(): Buffer {
    return this.#buffer.subarray(this.#carry);
  }

  /** `nread` bytes have landed at readTarget(): deliver every whole message, carry the rest. */
  received(nread: number): void {
    const end = this.#carry + nread;
    const bytes = this.#buffer;
    let at = 0;
    while (at + HEADER <= end) {
      const length = bytes.readUInt32BE(at + 1);
      if (at + 1 + length > end) break;
      this.onMessage?.(bytes[at]!, at + HEADER, length, bytes);
      at += 1 + length;
    }
    this.#carry = end - at;
    if (this.#carry > 0) bytes.copyWithin(0, at, end);
    this.#fit(this.#carry >= HEADER ? 1 + bytes.readUInt32BE(1) : 0);
  }

  /** Room for a message of `needed` bytes; back to the initial size once a large one is done. */
  #fit(needed: number): void {
    const size = this.#buffer.length;
    let wanted = size;
    if (needed > size) wanted = 2 ** Math.ceil(Math.log2(needed));
    else if (this.#carry === 0 && size > this.initialSize) wanted = this.initialSize;
    if (wanted === size) return;
    const next = Buffer.allocUnsafeSlow(wanted);
    this.#buffer.copy(next, 0, 0, this.#carry);
    this.#buffer = next;
  }
}

const framers = new WeakMap<object, MessageFramer>();

/** A socket for pg's Connection that reads through a MessageFramer (see framerOf). */
export function framedSocket(): net.Socket {
  const framer = new MessageFramer();
  const onread: net.OnReadOpts = {
    buffer: () => framer.readTarget(),
    callback: (nread) => {
      framer.received(nread);
      return true; // keep reading (false would pause the socket)
    },
  };
  // Node takes `onread` in the Socket constructor too (net.md); @types/node lists it for connect() only.
  const socket = new net.Socket({ onread } as net.SocketConstructorOpts);
  framers.set(socket, framer);
  return socket;
}

/** The framer of a socket made by framedSocket; undefined for any other stream (TLS, a plain socket). */
export function framerOf(stream: object): MessageFramer | undefined {
  return framers.get(stream);
}
