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
  return '[' + eventsJsonBody(events) + ']';
}

/**
 * The comma-separated event objects of eventsJson without the brackets ("" for none). With
 * msgIndex, each event gets a trailing msg_index attribute (as withMsgIndex adds) without copying.
 */
export function eventsJsonBody(events: SimEvent[], msgIndex?: string): string {
  let out = '';
  const indexAttr = msgIndex === undefined ? '' : attributeJson('msg_index', msgIndex);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (i > 0) out += ',';
    out += '{"type":' + quote(e.type);
    if (e.attributes.length > 0 || indexAttr !== '') {
      out += ',"attributes":[';
      for (let j = 0; j < e.attributes.length; j++) {
        const a = e.attributes[j]!;
        if (j > 0) out += ',';
        out += attributeJson(a.key, a.value);
      }
      if (indexAttr !== '') out += (e.attributes.length > 0 ? ',' : '') + indexAttr;
      out += ']';
    }
    out += '}';
  }
  return out;
}

function attributeJson(key: string, value: string): string {
  return '{"key":' + quote(key) + (value !== '' ? ',"value":' + quote(value) : '') + ',"index":true}';
}
