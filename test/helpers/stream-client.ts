import { EventSource } from 'eventsource';
import { Agent, fetch as undiciFetch } from 'undici';

export interface ReceivedEvent {
  id: number;
  data: string;
}

export interface StreamRecorder {
  url: string;
  events: ReceivedEvent[];
  close(): void;
}

/**
 * Recording `EventSource`s (Node's `eventsource` package: it reconnects by itself with
 * Last-Event-ID, as a browser does). `until` re-checks its condition on every event any of the
 * group's streams receives, so a test waits for what arrives, never for a fixed time.
 */
export interface StreamGroup {
  record(url: string, eventName: string): StreamRecorder;
  /** Resolves once `ready()` holds; rejects with the reason once `giveUp()` returns one first. */
  until(ready: () => boolean, giveUp: () => string | undefined): Promise<void>;
  closeAll(): void;
}

export function createStreamGroup(): StreamGroup {
  const checks = new Set<() => void>();
  const recorders: StreamRecorder[] = [];
  const tick = () => {
    for (const check of [...checks]) check();
  };
  return {
    record(url, eventName) {
      const events: ReceivedEvent[] = [];
      // Each stream on a connection of its own, as browsers' EventSources are; Node's shared fetch
      // pool otherwise left one of many concurrent streams to one origin without a connection.
      const agent = new Agent();
      const source = new EventSource(url, {
        fetch: (input, init) =>
          undiciFetch(input, { ...init, dispatcher: agent } as Parameters<
            typeof undiciFetch
          >[1]) as unknown as Promise<Response>,
      });
      source.addEventListener(eventName, (e) => {
        events.push({ id: Number(e.lastEventId), data: e.data });
        tick();
      });
      const recorder = {
        url,
        events,
        close: () => {
          source.close();
          void agent.close();
        },
      };
      recorders.push(recorder);
      return recorder;
    },
    until(ready, giveUp) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const reason = ready() ? undefined : giveUp();
          if (!ready() && reason === undefined) return;
          checks.delete(check);
          if (reason === undefined) resolve();
          else reject(new Error(reason));
        };
        checks.add(check);
        check();
      });
    },
    closeAll() {
      for (const r of recorders) r.close();
    },
  };
}

/** The `height` of an event's JSON (blocks and txs both carry it, as a string). */
export const heightOf = (e: ReceivedEvent): number =>
  Number((JSON.parse(e.data) as { height: string }).height);

/** The newest height a recorder has seen (0 before any event). */
export const lastHeight = (r: StreamRecorder): number => {
  const last = r.events.at(-1);
  return last === undefined ? 0 : heightOf(last);
};
