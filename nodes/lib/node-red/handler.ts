// The one input-handler shape of every worker node: show that work started, run the node's async
// step, send what it returns, then call done() exactly once, or done(err) with a translated
// EdgeError so a Catch node sees it. Every message ends in one output or one error; a message
// cancelled by close or msg.reset ends with done() alone. Node-RED never awaits an input
// listener, so nothing here may reject.
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from "node-red";
import { EdgeError } from "../api/errors";
import type { CallOptions } from "../api/client";
import { describe, translator } from "./i18n";
import type { Translate } from "./i18n";

export type Outgoing = NodeMessage | (NodeMessage | NodeMessage[] | null)[];

export interface InputContext {
  /** Aborted when the node closes or its waits are cancelled. */
  signal: AbortSignal;
  t: Translate;
  /** Sends part of the result early (one message per event, say). */
  send: (out: Outgoing) => void;
  status: (status: NodeStatus) => void;
  /** Passes to the client so retries show in the status. */
  call: CallOptions;
}

export interface Result {
  send?: Outgoing;
  /** Text of the status after success. */
  status: string;
  /** Its colour: green unless the result itself is bad news (a command fault, say). */
  fill?: "green" | "yellow" | "red";
}

export type InputStep = (msg: NodeMessageInFlow, ctx: InputContext) => Promise<Result | null>;

export interface HandlerOptions {
  /** Status while messages are in flight; blue "requesting" by default. */
  busy?: (pending: number, t: Translate) => NodeStatus;
}

export interface InputHandle {
  /** Cancels every message in flight; each ends with done() and no output. */
  cancelAll(): void;
}

const MAX_STATUS = 60;

function short(text: string): string {
  return text.length > MAX_STATUS ? `${text.slice(0, MAX_STATUS - 1)}…` : text;
}

function toEdgeError(err: unknown): EdgeError | Error {
  if (err instanceof EdgeError || err instanceof Error) return err;
  return new Error(String(err));
}

export function handleInput(
  RED: NodeAPI,
  node: Node,
  name: string,
  step: InputStep,
  options: HandlerOptions = {},
): InputHandle {
  const t = translator(RED, name);
  const inflight = new Map<AbortController, Promise<void>>();
  const busy =
    options.busy ??
    ((pending: number) => ({
      fill: "blue",
      shape: "dot",
      text:
        pending > 1 ? `${t("edge.status.requesting")} (${pending})` : t("edge.status.requesting"),
    }));

  const run = async (
    msg: NodeMessageInFlow,
    controller: AbortController,
    send: (out: Outgoing) => void,
    done: (err?: Error) => void,
  ): Promise<void> => {
    const call: CallOptions = {
      signal: controller.signal,
      onRetry: (attempt) => {
        node.status({
          fill: "yellow",
          shape: "ring",
          text: t("edge.status.retrying", { attempt }),
        });
      },
    };
    try {
      const result = await step(msg, {
        signal: controller.signal,
        t,
        send,
        status: (s) => {
          node.status(s);
        },
        call,
      });
      if (controller.signal.aborted) {
        done();
        return;
      }
      if (result?.send) send(result.send);
      if (result)
        node.status({ fill: result.fill ?? "green", shape: "dot", text: short(result.status) });
      done();
    } catch (caught) {
      if (controller.signal.aborted) {
        done();
        return;
      }
      const err = toEdgeError(caught);
      if (err instanceof EdgeError) {
        err.message = describe(t, err);
        if (err.status !== undefined) msg.statusCode = err.status;
        msg.edgeError = err.toJSON();
      }
      node.status({ fill: "red", shape: "ring", text: short(err.message) });
      done(err);
    }
  };

  node.on("input", (msg, send, done) => {
    const controller = new AbortController();
    const task = run(msg, controller, send, done).finally(() => inflight.delete(controller));
    inflight.set(controller, task);
    node.status(busy(inflight.size, t));
  });

  const cancelAll = (): void => {
    for (const controller of inflight.keys()) controller.abort();
  };

  node.on("close", (_removed: boolean, done: () => void) => {
    cancelAll();
    void Promise.allSettled([...inflight.values()]).then(() => {
      node.status({});
      done();
    });
  });

  return { cancelAll };
}
