/** ABCI events as the simulator builds them, and their CometBFT JSON (cmtjson, omitempty). */

export interface SimAttribute {
  key: string;
  value: string;
}

export interface SimEvent {
  type: string;
  attributes: SimAttribute[];
}

export function event(type: string, pairs: Array<[string, string]>): SimEvent {
  return { type, attributes: pairs.map(([key, value]) => ({ key, value })) };
}

/** Appends msg_index to every attribute list, as baseapp does for message events. */
export function withMsgIndex(events: SimEvent[], msgIndex: number): SimEvent[] {
  const value = String(msgIndex);
  return events.map((e) => ({ type: e.type, attributes: [...e.attributes, { key: 'msg_index', value }] }));
}

/** JSON string literal of a value, without JSON.stringify for the common plain-text case. */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Controls, quote and backslash are escaped; any surrogate goes to JSON.stringify (lone ones are).
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return '"' + text + '"';
}

/**
 * CometBFT JSON of events: every attribute indexed (the SDK default), an empty value has no
 * "value" key, an event without attributes has no "attributes" key.
 */
export function eventsJson(events: SimEvent[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (i > 0) out += ',';
    out += '{"type":' + quote(e.type);
    if (e.attributes.length > 0) {
      out += ',"attributes":[';
      for (let j = 0; j < e.attributes.length; j++) {
        const a = e.attributes[j]!;
        if (j > 0) out += ',';
        out += '{"key":' + quote(a.key);
        if (a.value !== '') out += ',"value":' + quote(a.value);
        out += ',"index":true}';
      }
      out += ']';
    }
    out += '}';
  }
  return out + ']';
}
