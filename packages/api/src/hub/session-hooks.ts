import { dispatchNotification, dispatchSessionEnd, type AgentEvent, type HookNotification, type SessionEndReason } from "@cairn/core";
import type { SessionWiring } from "../runtime/runtime-types.ts";
import type { EventBus } from "./event-bus.ts";

type SessionHooksOptions = {
  sessionId: string;
  bus: EventBus;
  /** The session's wiring, made if it does not exist yet. */
  wiring: () => SessionWiring;
  /** The session's wiring if it was made, without making it. */
  existingWiring: () => SessionWiring | undefined;
};

/**
 * The hooks a live session runs outside a prompt (Notification, SessionEnd). Their runs go to the
 * transcript and the bus, like any hook's; closing the session cancels the ones still running.
 */
export class SessionHooks {
  private readonly controller = new AbortController();
  private readonly options: SessionHooksOptions;

  constructor(options: SessionHooksOptions) {
    this.options = options;
  }

  /**
   * Tells the user's `Notification` hooks that the session wants attention (a permission prompt is
   * waiting, the session is idle, or anything else another part of Cairn wants to say).
   */
  async notify(notification: HookNotification): Promise<void> {
    const hooks = this.options.wiring().hooks;
    const notified = await dispatchNotification(hooks, notification, { signal: this.controller.signal, now: Date.now }).catch(() => undefined);
    for (const event of notified?.events ?? []) await this.record(event);
  }

  /** Runs SessionEnd (only if the session was wired). */
  async sessionEnd(reason: SessionEndReason = "other"): Promise<void> {
    const wiring = this.options.existingWiring();
    if (!wiring) return;
    const ended = await dispatchSessionEnd(wiring.hooks, reason, { signal: this.controller.signal, now: Date.now }).catch(() => undefined);
    for (const event of ended?.events ?? []) await this.record(event);
  }

  /** Cancels the hooks still running. */
  abort(): void {
    this.controller.abort();
  }

  /** Keeps an event that happened outside a prompt run: hook runs in the transcript, every event on the bus. */
  private async record(event: AgentEvent): Promise<void> {
    if (event.type === "hook-runs")
      await this.options
        .existingWiring()
        ?.sink.appendHookRuns(event.event, event.runs)
        .catch(() => undefined);
    this.options.bus.publish(this.options.sessionId, event);
  }
}
