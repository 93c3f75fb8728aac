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

/**
 * CometBFT JSON of events: every attribute indexed (the SDK default), an empty value has no
 * "value" key, an event without attributes has no "attributes" key.
 */
export function eventsJson(events: SimEvent[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (i > 0) out += ',';
    out += `{"type":${JSON.stringify(e.type)}`;
    if (e.attributes.length > 0) {
      out += ',"attributes":[';
      for (let j = 0; j < e.attributes.length; j++) {
        const a = e.attributes[j]!;
        if (j > 0) out += ',';
        out += `{"key":${JSON.stringify(a.key)}`;
        if (a.value !== '') out += `,"value":${JSON.stringify(a.value)}`;
        out += ',"index":true}';
      }
      out += ']';
    }
    out += '}';
  }
  return out + ']';
}
