/** Stored, already-rendered JSON: as text, or as its UTF-8 bytes straight from the driver. */
export type JsonText = string | Buffer;
