import { AppError } from '../errors.js';

/** Protobuf wire-format reading and writing, with exact 64-bit integers as decimal strings. */

export class ProtoDecodeError extends AppError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('proto_malformed', message, { details });
    this.name = 'ProtoDecodeError';
  }
}

const TWO_32 = 4294967296;

export class WireReader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  private fail(what: string): never {
    throw new ProtoDecodeError(`malformed protobuf: ${what} at byte ${this.pos}`);
  }

  /** A varint that must fit 32 bits unsigned (tags, lengths). */
  uint32(): number {
    let result = 0;
    let shift = 0;
    while (shift < 35) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result >>> 0;
      shift += 7;
    }
    // Longer varints (negative int32) keep the low 32 bits, as protobuf requires.
    this.skipVarintTail();
    return result >>> 0;
  }

  private skipVarintTail(): void {
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      if ((this.buf[this.pos++] as number) < 0x80) return;
    }
    this.fail('varint too long');
  }

  /** A full 64-bit varint as [lo, hi] 32-bit unsigned halves. */
  varint64(): [number, number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++] as number;
      if (i < 4) lo |= (b & 0x7f) << (i * 7);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (i * 7 - 32);
      if (b < 0x80) return [lo >>> 0, hi >>> 0];
    }
    return this.fail('varint too long');
  }

  fixed32(): number {
    if (this.pos + 4 > this.end) this.fail('truncated fixed32');
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (
      ((b[p] as number) | ((b[p + 1] as number) << 8) | ((b[p + 2] as number) << 16)) +
      (b[p + 3] as number) * 0x1000000
    );
  }

  fixed64(): [number, number] {
    const lo = this.fixed32();
    return [lo, this.fixed32()];
  }

  /** Bounds of a length-delimited payload; the reader moves past it. */
  lengthDelimited(): [number, number] {
    const len = this.uint32();
    const start = this.pos;
    if (start + len > this.end) this.fail('length beyond end of message');
    this.pos += len;
    return [start, start + len];
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint64();
        return;
      case 1:
        this.fixed64();
        return;
      case 2:
        this.lengthDelimited();
        return;
      case 5:
        this.fixed32();
        return;
      default:
        this.fail(`unsupported wire type ${wireType}`);
    }
  }
}

export function uint64String(lo: number, hi: number): string {
  if (hi === 0) return String(lo);
  if (hi < 0x200000) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

export function int64String(lo: number, hi: number): string {
  if (hi < 0x80000000) return uint64String(lo, hi);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

export function sint64String(lo: number, hi: number): string {
  const v = (BigInt(hi) << 32n) | BigInt(lo);
  return ((v >> 1n) ^ -(v & 1n)).toString();
}

/** Short ASCII strings (addresses, denoms, type URLs) skip the decoder's per-call overhead. */
export function utf8(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= 96) {
    let ascii = '';
    for (let i = start; i < end; i++) {
      const c = buf[i] as number;
      if (c >= 0x80) return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
      ascii += String.fromCharCode(c);
    }
    return ascii;
  }
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
}

export function base64(buf: Uint8Array, start = 0, end = buf.length): string {
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('base64');
}

/** Growable byte buffer; nested messages are encoded to their own writer, then appended. */
export class WireWriter {
  private buf = new Uint8Array(64);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  tag(fieldNo: number, wireType: number): void {
    this.uint32(fieldNo * 8 + wireType);
  }

  uint32(value: number): void {
    this.ensure(5);
    let v = value >>> 0;
    while (v > 0x7f) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.len++] = v;
  }

  /** Any 64-bit two's-complement value (also negative int32, written as 10 bytes). */
  varintBig(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    this.ensure(10);
    while (v > 0x7fn) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  fixed32(value: number): void {
    this.ensure(4);
    const v = value >>> 0;
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = (v >>> 16) & 0xff;
    this.buf[this.len++] = v >>> 24;
  }

  fixed64(value: bigint): void {
    const v = BigInt.asUintN(64, value);
    this.fixed32(Number(v & 0xffffffffn));
    this.fixed32(Number(v >> 32n));
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  lengthDelimited(bytes: Uint8Array): void {
    this.uint32(bytes.length);
    this.raw(bytes);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
