// The one input-handler shape of every worker node: show that work started, run the node's async
// step, send what it returns, then call done() exactly once, or done(err) with a translated
// EdgeError so a Catch node sees it. Every message ends in one output or one error; a message
// cancelled by close or msg.reset ends with done() alone (a cancel in the editor's tab is an
// error, `cancelled`). Node-RED never awaits an input
// listener, so nothing here may reject. A node whose configuration is invalid says so at deploy
// with a red status that stays, and refuses every message with that error.
import { setMaxListeners } from "node:events";
import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from "node-red";
import { EdgeError } from "../api/errors";
import type { CallOptions } from "../api/client";
import { errorText, translator } from "./i18n";
import { Intake } from "./intake";
import type { IntakeLimit } from "./intake";
import { StatusThrottle, accountFaultStatus, accountStatus, clip, errorStatus } from "./status";
import { accountFault, healthOf } from "../account/lookup";
import type { StatusSource } from "./status";
import type { Translate } from "./i18n";
import { MAX_MSG_DEPTH, fitForCatch, messagesOf, msgUncopyable } from "./copyable";
import type { Outgoing } from "./copyable";
import { isStackOverflow, textOf } from "./thrown";
import { deployEndOf } from "./deploying";
import { disabledInDeploy } from "./disabled";

export type { Outgoing };

export interface InputContext {
  /** Aborted when the node closes or its waits are cancelled. */
  signal: AbortSignal;
  t: Translate;
  /** Sends part of the result early (one message per event, say). */
  send: (out: Outgoing) => void;
  status: (status: NodeStatus) => void;
  /** Passes to the client so that requests and retries show in the status. */
  call: CallOptions;
  /**
   * Shows the busy status, for work that is no request of `call` (a wait on the shared inbox
   * poller): called when that work starts, after the message passed every check.
   */
  busy: () => void;
}

export interface Result {
  send?: Outgoing;
  /** Text of the status after success. */
  status: string | (() => string);
  /** Its colour: green unless the result itself is bad news (a command fault, say). */
  fill?: "green" | "yellow" | "red";
}

export type InputStep = (msg: NodeMessageInFlow, ctx: InputContext) => Promise<Result | null>;

/**
 * How a message's work ended while its node closed: with a result the node had no time to send,
 * or with an error that says the request may have reached the server (a command's POST).
 */
export type CarriedOutcome = { result: Result } | { error: EdgeError };

export interface HandlerOptions {
  /** Status while messages are in flight; blue "requesting" by default. */
  busy?: (pending: number, t: Translate) => NodeStatus;
  /** The node's account: its health (queue, 429 wait, failed authentication) shows here too. */
  account?: string;
  /**
   * What is wrong with the node's configuration, found at deploy: shown then, as a status that
   * stays, and every message is refused with it (before it could cost a request).
   */
  invalid?: EdgeError;
  /**
   * A message whose work may have reached the server when its node closed for a redeploy, handed
   * over instead of ending with done() alone; true when the node took it, and will end it through
   * the node the deploy puts in its place. A redeploy with command POSTs in flight once ended
   * their messages with no output and no error though the devices ran the commands (issue 28).
   */
  carry?: (msg: NodeMessageInFlow, outcome: CarriedOutcome) => boolean;
}

export interface InputHandle {
  /** Cancels every message in flight; each ends with done() and no output. */
  cancelAll(): void;
  /**
   * Bounds the intake (intake.ts): `limit` says how many messages run at once and how many more
   * may wait, read when a message arrives; without it (a wait, say) every message runs at once.
   */
  limitBy(limit: () => IntakeLimit | undefined): void;
}

/** Every failure reaches the flow as an EdgeError with a code; a bug or a foreign throw too. */
function toEdgeError(err: unknown): EdgeError {
  if (err instanceof EdgeError) return err;
  // Of any realm: a Function node's getter that recursed overflows in its own vm context.
  if (isStackOverflow(err)) return new EdgeError("too-deep-msg", { max: MAX_MSG_DEPTH });
  return new EdgeError("internal", { detail: textOf(err) });
}

/**
 * The error of a message whose request had left when its node closed: an abort says only
 * "cancelled", but the server may have acted on it (a command may run).
 */
function uncertain(err: EdgeError): EdgeError {
  if (err.code !== "aborted") return err;
  const where = { method: err.method ?? "*", path: err.path ?? "*" };
  return new EdgeError("aborted-uncertain", where, { ...where, mayHaveBeenSent: true });
}

export function handleInput(
  RED: NodeAPI,
  node: Node,
  name: string,
  step: InputStep,
  options: HandlerOptions = {},
): InputHandle {
  const t = translator(RED, name);
  const deployEnd = deployEndOf(RED.events);
  // Messages in flight: a count, not a set of promises, since a pending await would hold one.
  let pending = 0;
  let onIdle: (() => void) | undefined;
  type Send = (out: Outgoing) => void;
  type Done = (err?: Error) => void;
  const intake = new Intake<NodeMessageInFlow, Send, Done>();
  const start = (msg: NodeMessageInFlow, send: Send, done: Done, arrived?: number): void => {
    intake.running++;
    void run(msg, generation, send, done, undefined, arrived);
  };
  let limitOf: (() => IntakeLimit | undefined) | undefined;
  let pumping = false;
  const pump = (): void => {
    pumping = false;
    const limit = limitOf?.();
    while (intake.waiting > 0 && (!limit || intake.running < limit.running)) intake.next(start);
  };
  const settled = (): void => {
    intake.running--;
    // Held messages start together in the next turn of the event loop, not one at a time inside
    // the promise chain of the message that just ended: in a burst of 1,000 that cut the CPU per
    // message by about a quarter (docs/performance.md). Until then a new message waits behind
    // them (the input listener below), so they still start in the order they came.
    if (intake.waiting > 0 && !pumping) {
      pumping = true;
      setImmediate(pump);
    }
    if (--pending === 0) onIdle?.();
  };
  // One controller for every message in flight, replaced when they are cancelled: an
  // AbortController costs about 5 µs in Node 20, a tenth of this package's time per message.
  const newGeneration = (): AbortController => {
    const controller = new AbortController();
    // Every message in flight listens on it: a thousand pending awaits are normal, not a leak.
    setMaxListeners(0, controller.signal);
    return controller;
  };
  let generation = newGeneration();
  /** Set when the node closes: the messages its cancel cuts off may be carried (cancelled()). */
  let closing: { removed: boolean } | undefined;
  const busy =
    options.busy ??
    ((pending: number) => ({
      fill: "blue",
      shape: "dot",
      text:
        pending > 1 ? `${t("edge.status.requesting")} (${pending})` : t("edge.status.requesting"),
    }));

  const shown = new StatusThrottle(node);
  const { invalid } = options;
  // An account that cannot work (one without a token, say) fails every message with its error:
  // said at deploy under the node, as the node's own invalid settings are, and kept as they fail.
  const fault = invalid ? undefined : accountFault(RED, options.account);
  // A node that refuses everything shows why and nothing else, not the account's passing states.
  const unwatch = invalid
    ? undefined
    : healthOf(RED, options.account)?.watch((s) => {
        shown.account(accountStatus(t, s));
      });
  /** A result: shown at once when it leaves the node idle, else coalesced with the others. */
  const show = (s: StatusSource): void => {
    if (pending <= 1) shown.now(s);
    else shown.soon(s);
  };
  // Made once, not per message: a pending await holds its message's context for minutes.
  const status = (s: NodeStatus): void => {
    shown.now(s);
  };
  const onRetry = (attempt: number): void => {
    status({ fill: "yellow", shape: "ring", text: t("edge.status.retrying", { attempt }) });
  };
  // The busy status shows when a message's work starts, not when it arrives: a message refused
  // before any request (no device, bad elems, invalid settings) shows its red error alone,
  // without a blue "requesting" flashing first.
  const showBusy = (): void => {
    shown.soon(busyNow);
  };
  const calls = new WeakMap<AbortController, CallOptions>();
  const callOf = (controller: AbortController): CallOptions => {
    let call = calls.get(controller);
    if (!call) {
      call = { signal: controller.signal, onRetry, onRequest: showBusy };
      calls.set(controller, call);
    }
    return call;
  };

  /** Ends the message; a throw from Node-RED's side (a hook, a copy) is logged, never rethrown. */
  const end = (done: (err?: Error) => void, err?: Error): void => {
    try {
      done(err);
    } catch (caught) {
      try {
        node.error(err ? `${err.message} (${textOf(caught)})` : textOf(caught));
      } catch {
        // Nothing is left to tell.
      }
    }
  };

  const fail = (
    msg: NodeMessageInFlow,
    caught: unknown,
    done: (err?: Error) => void,
    handed: boolean,
  ): void => {
    const err = toEdgeError(caught);
    if (handed) {
      // The msg is already on its way (or with the next node): reporting it as failed too would
      // end it twice, and taking properties out of it would change it under its receiver.
      try {
        node.error(errorText(t, err));
      } catch {
        // Nothing is left to tell.
      }
      end(done);
      return;
    }
    try {
      err.message = errorText(t, err);
      const removed = fitForCatch(msg);
      if (err.status !== undefined) msg.statusCode = err.status;
      msg.edgeError = removed.length > 0 ? { ...err.toJSON(), removed } : err.toJSON();
      // A cancel in the editor's tab: the node says itself how many it cancelled and what is left
      // (in-flight.ts), which a red ring per message, shown after it, would replace.
      if (err.code !== "cancelled")
        show(
          fault?.error === err
            ? accountFaultStatus(t, fault)
            : { fill: "red", shape: "ring", text: errorStatus(t, err) },
        );
    } catch {
      // The error still ends the message below.
    }
    end(done, err);
  };

  const run = async (
    msg: NodeMessageInFlow,
    controller: AbortController,
    send: (out: Outgoing) => void,
    done: (err?: Error) => void,
    refused?: EdgeError,
    arrived?: number,
  ): Promise<void> => {
    // Whether this msg itself has been handed to send(): from then on it is not ours to fail.
    let handed = false;
    /**
     * Node-RED's send(), after the check that its copies can be made: a msg too deep to copy is
     * refused before any wire has it. Once handed over, a throw from Node-RED's side (a hook, a
     * copy) is logged, never made the message's error: the first wire may already have it.
     */
    const checkedSend = (out: Outgoing): void => {
      const msgs = messagesOf(out);
      for (const m of msgs)
        if (msgUncopyable(m)) throw new EdgeError("too-deep-msg", { max: MAX_MSG_DEPTH });
      if (msgs.includes(msg)) handed = true;
      try {
        send(out);
      } catch (caught) {
        try {
          node.error(textOf(caught));
        } catch {
          // Nothing is left to tell.
        }
      }
    };
    try {
      if (refused) throw refused;
      const shared = callOf(controller);
      // A message held by the intake spent part of its requests' budget waiting there.
      const call = arrived === undefined ? shared : { ...shared, since: arrived };
      const result = await step(msg, {
        signal: controller.signal,
        t,
        send: checkedSend,
        status,
        call,
        busy: showBusy,
      });
      const deployed = deployEnd(controller.signal);
      if (deployed) await deployed;
      if (controller.signal.aborted) {
        cancelled(msg, result ? { result } : undefined, done, handed);
        return;
      }
      if (result?.send) checkedSend(result.send);
      if (result) {
        const { status, fill = "green" } = result;
        show(() => ({
          fill,
          shape: "dot",
          text: clip(typeof status === "function" ? status() : status),
        }));
      }
      end(done);
    } catch (caught) {
      // An error waits for a deploy under way too: the Catch nodes may be restarting.
      const deployed = deployEnd(controller.signal);
      if (deployed) await deployed;
      if (controller.signal.aborted) {
        const error = caught instanceof EdgeError ? { error: caught } : undefined;
        cancelled(msg, error, done, handed);
      } else fail(msg, caught, done, handed);
    } finally {
      settled();
    }
  };

  /**
   * Ends a message whose work was cut off by a cancel (done() alone), unless the node closes and
   * the work may have reached the server: then the node carries it (options.carry), or, when the
   * node was removed and no node follows, its error ends it.
   */
  const cancelled = (
    msg: NodeMessageInFlow,
    outcome: CarriedOutcome | undefined,
    done: (err?: Error) => void,
    handed: boolean,
  ): void => {
    if (closing === undefined || outcome === undefined || handed || !options.carry) {
      end(done);
    } else if ("error" in outcome && !outcome.error.mayHaveBeenSent) {
      end(done);
    } else {
      const carried = "error" in outcome ? { error: uncertain(outcome.error) } : outcome;
      if (closing.removed) {
        if ("error" in carried) fail(msg, carried.error, done, false);
        else end(done);
      } else if (!options.carry(msg, carried)) {
        end(done);
      }
    }
  };

  // Made when it is shown, a throttle interval after it was asked for: by then a cancel (the
  // sidebar's, msg.reset) may have ended every message and shown why, which "waiting (0)" or
  // "requesting" would replace.
  const busyNow = (): NodeStatus | undefined => (pending > 0 ? busy(pending, t) : undefined);
  if (invalid) {
    // Said once at deploy, in the log and on the node; each message then fails with it.
    invalid.message = errorText(t, invalid);
    node.error(invalid.message);
    shown.now({ fill: "red", shape: "ring", text: errorStatus(t, invalid) });
  } else if (fault) {
    shown.now(accountFaultStatus(t, fault));
  }
  node.on("input", (msg, send, done) => {
    pending++;
    if (invalid) {
      intake.running++;
      void run(msg, generation, send, done, invalid);
      return;
    }
    const limit = limitOf?.();
    const admitted = intake.admit(limit);
    if (admitted === "start") start(msg, send, done);
    else if (admitted === "hold") intake.hold(msg, send, done);
    else {
      intake.running++;
      void run(
        msg,
        generation,
        send,
        done,
        new EdgeError("queue-full", { max: limit?.waiting ?? 0 }),
      );
    }
  });

  const cancelAll = (): void => {
    generation.abort();
    generation = newGeneration();
    // Held messages never started: they end as the cancelled ones do, with done() alone.
    intake.drain((_msg, _send, done) => {
      end(done);
      if (--pending === 0) onIdle?.();
    });
  };

  node.on("close", (removed: boolean, done: () => void) => {
    // A disabled node's work is carried as at a redeploy, for the node enabled again (issue 35).
    closing = { removed: removed && !disabledInDeploy(RED, node) };
    cancelAll();
    const finish = (): void => {
      unwatch?.();
      shown.clear();
      done();
    };
    if (pending === 0) finish();
    else onIdle = finish;
  });

  return {
    cancelAll,
    limitBy: (limit) => {
      limitOf = limit;
    },
  };
}
