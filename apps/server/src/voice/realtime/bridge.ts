import type { RealtimeClientEvent, RealtimeResponseUsage } from 'openai/resources/realtime/realtime';
import WebSocket, { type RawData } from 'ws';
import { isWorkingPhase } from '../../conversations/phases.ts';
import type { AppContext } from '../../context.ts';
import { advancePhase, bookRealtimeUsage, type CallContext, findCall, storeTranscript } from './call-store.ts';
import { updateCall } from './twilio-call-update.ts';
import { verifyStreamSignature } from './stream-signature.ts';
import { dialTwiml, goodbyeTwiml } from '../twiml.ts';
import { verifyStreamBinding } from '../urls.ts';
import { PlaybackTracker, splitPayload } from './playback.ts';
import { ResponseLatency, storeResponseLatency } from './response-latency.ts';
import { DEFAULT_REALTIME_VOICE, openingResponse, sessionUpdate, voiceSettingsOf } from './session.ts';
import { KNOWLEDGE_TOOL, runKnowledgeTool, withKnowledgeTool } from './knowledge-tool.ts';
import { typeCollectionIds } from '../../knowledge/type-collections.ts';
import { conversationToolbox, storedTranscript, type Toolbox } from '../../agent/tools/toolbox.ts';
import { isConfirmation, takePendingToolCall } from '../../agent/tools/pending-tool-call.ts';
import { runAgentTool, withAgentTools } from './agent-tools.ts';
import { isBase64, isTwilioSid, realtimeAppend, type TwilioStart, twilioClear, twilioMark, twilioMedia } from './twilio-media.ts';

/** Twilio sends `start` right after `connected`; a socket that never does is closed after this long. */
export const START_TIMEOUT_MS = 10_000;
/** After the caller's side ends, the session stays open this long for the caller's last line to be transcribed. */
export const TRANSCRIPT_GRACE_MS = 3000;
/** A hang-up or transfer waits for the goodbye to play, but not longer than this (marks may never come back). */
export const ACTION_TIMEOUT_MS = 15_000;
/** Caller frames kept while the OpenAI socket opens: 5 s of 20 ms frames; older ones are dropped. */
const MAX_QUEUED_FRAMES = 250;

type PendingAction = { kind: 'hangup' } | { kind: 'transfer'; number: string };
interface ToolCall {
  name: string;
  callId: string;
  arguments: string;
}

/**
 * One phone call's bridge between a Twilio Media Stream and an OpenAI Realtime session (docs/voice.md
 * "Realtime"). The OpenAI socket opens only once Twilio's `start` has named the conversation and the
 * upgrade's signature checked out against that conversation's TWILIO account. Audio is relayed as it comes,
 * never held back; marks only record what the caller has heard, for barge-in truncation. Database writes
 * (transcripts, phase, usage) run beside the audio and never delay it.
 */
export class MediaStreamBridge {
  private state: 'waiting-start' | 'starting' | 'open' | 'closed' = 'waiting-start';
  private openai: WebSocket | null = null;
  private call: CallContext | null = null;
  private streamSid = '';
  private callSid = '';
  private phase: number | null = null;
  private voice = DEFAULT_REALTIME_VOICE;
  private transferNumber: string | null = null;
  /** The type's knowledge collections (issue 21): the session then has the search_knowledge tool. */
  private knowledgeCollections: number[] = [];
  /** The type's tools (issue 22), run through the same toolbox as a chat turn. */
  private toolbox: Toolbox | null = null;
  /** Toolbox calls since the caller last spoke (the per-turn cap of a chat turn). */
  private toolCallsThisTurn = 0;
  /** A tool call is held for the caller's yes: their next line other than a yes drops it. */
  private holdingToolCall = false;
  private lastCallerLine: { text: string; at: number } | null = null;
  private transcribedWaiters: (() => void)[] = [];
  private readonly playback = new PlaybackTracker();
  private readonly latency = new ResponseLatency();
  /** Items cut by a barge-in: their late deltas are dropped so the agent cannot keep talking. */
  private readonly truncated = new Set<string>();
  private queuedAudio: string[] = [];
  private responseActive = false;
  private responseRequested = false;
  private responseHadAudio = false;
  private toolCalls: ToolCall[] = [];
  private pendingAction: PendingAction | null = null;
  private actionStarted = false;
  /** We are ending the call ourselves (hang-up, transfer, polite end): a closing OpenAI socket is expected. */
  private ending = false;
  private readonly startedAt = new Map<string, Date>();
  /** Caller items whose speech started and whose transcript has not come yet. */
  private readonly untranscribed = new Set<string>();
  private draining = false;
  private readonly work = new Set<Promise<unknown>>();
  private toolChain: Promise<void> = Promise.resolve();
  private transcripts: Promise<void> = Promise.resolve();
  private startTimer: NodeJS.Timeout | null = null;
  private actionTimer: NodeJS.Timeout | null = null;
  private graceTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly twilio: WebSocket,
    private readonly request: { signature: string | undefined; url: string; binding?: string },
    private readonly onClosed: (bridge: MediaStreamBridge) => void = () => {},
  ) {
    twilio.on('message', (data) => this.onTwilioMessage(data));
    twilio.on('close', () => this.callerGone());
    twilio.on('error', (err) => ctx.log.warn({ err: err.message }, 'media stream socket error'));
    this.startTimer = setTimeout(() => this.refuse('no start message'), START_TIMEOUT_MS);
    this.startTimer.unref();
  }

  // ---- Twilio side -------------------------------------------------------------------------------------

  private onTwilioMessage(data: RawData): void {
    let message: { event?: string; media?: { payload?: unknown }; mark?: { name?: unknown } };
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    switch (message.event) {
      case 'media':
        this.onCallerAudio(message.media?.payload);
        break;
      case 'mark':
        if (typeof message.mark?.name === 'string') this.playback.played(message.mark.name);
        this.maybeRunAction();
        break;
      case 'start':
        this.track(
          this.onStart(message as TwilioStart).catch((err: unknown) => {
            // The lookup failed (database down): no session can be served, so the stream is closed.
            this.refuse('could not load the call');
            throw err;
          }),
        );
        break;
      case 'stop':
        this.callerGone();
        break;
    }
  }

  /** The hot path: one caller frame becomes one input_audio_buffer.append, spliced as text. */
  private onCallerAudio(payload: unknown): void {
    if (!isBase64(payload)) return;
    if (this.state === 'open') this.openai!.send(realtimeAppend(payload));
    else if (this.state === 'starting') {
      this.queuedAudio.push(realtimeAppend(payload));
      if (this.queuedAudio.length > MAX_QUEUED_FRAMES) this.queuedAudio.shift();
    }
  }

  private async onStart(message: TwilioStart): Promise<void> {
    if (this.state !== 'waiting-start') return;
    this.state = 'starting';
    this.clearStartTimer();
    const start = message.start;
    if (!start || !isTwilioSid(start.streamSid, 'MZ') || !isTwilioSid(start.callSid, 'CA')) return this.refuse('malformed start message');
    // The stream's call comes from its URL's binding (signed with APP_SECRET for this uuid and CallSid, and
    // covered by X-Twilio-Signature), not from the unsigned <Parameter>: another call's binding, an expired
    // or forged one, or none at all is refused before any OpenAI session opens.
    const binding = verifyStreamBinding(this.ctx.config, this.request.binding);
    if (!binding) return this.refuse('missing, forged or expired stream binding');
    if (binding.callSid !== start.callSid) return this.refuse("stream binding of another call");
    const named = start.customParameters?.conversationUuid;
    if (named !== undefined && String(named).toLowerCase() !== binding.conversationUuid) return this.refuse("stream binding of another conversation");
    const call = await findCall(this.ctx, binding.conversationUuid);
    if (this.state !== 'starting') return;
    // Checked only now: the account (and so the Auth Token that signed the upgrade) follows from the uuid.
    if (!call || !verifyStreamSignature(this.ctx, call.account.accessToken, this.request.signature, this.request.url)) {
      return this.refuse('bad or missing X-Twilio-Signature, or unknown conversation');
    }
    const accountSid = call.account.config.accountSid;
    if ((typeof accountSid === 'string' && accountSid !== start.accountSid) || (call.callSid && call.callSid !== start.callSid)) {
      // A signature covers the URL only; binding the stream to the conversation's own call stops a replay.
      return this.refuse('stream of another call');
    }
    this.call = call;
    this.streamSid = start.streamSid;
    this.callSid = start.callSid;
    if (!call.loaded.type) return this.politeEnd('the conversation has no type');
    const settings = voiceSettingsOf(call.loaded.type.config);
    this.voice = settings.voice;
    this.transferNumber = settings.transferNumber;
    this.phase = this.workingPhaseOf(call.loaded.conversation.phase, call.loaded.conversation.resumePhase);
    if (!this.ctx.config.OPENAI_API_KEY) return this.politeEnd('OPENAI_API_KEY is not set');
    this.knowledgeCollections = await typeCollectionIds(this.ctx.db, call.loaded.type.id);
    const conversationId = call.loaded.conversation.id;
    this.toolbox = conversationToolbox(this.ctx, {
      conversationId,
      typeConfig: call.loaded.type.config,
      crmContactId: call.loaded.conversation.crmContactId ?? null,
      demoAgent: false,
      transcript: () => storedTranscript(this.ctx, conversationId),
    });
    if (this.state !== 'starting') return;
    this.openRealtime();
  }

  private sessionEvent(loaded: CallContext['loaded']) {
    return withAgentTools(withKnowledgeTool(sessionUpdate(loaded, this.phase, this.voice, this.transferNumber !== null), this.knowledgeCollections), this.toolbox);
  }

  private workingPhaseOf(phase: number, resumePhase: number | null): number | null {
    const count = this.call!.loaded.phases.length;
    if (isWorkingPhase(phase, count)) return phase;
    if (phase === -3 && resumePhase !== null && isWorkingPhase(resumePhase, count)) return resumePhase;
    return null;
  }

  private sendTwilio(text: string): void {
    if (this.twilio.readyState === WebSocket.OPEN) this.twilio.send(text);
  }

  // ---- OpenAI side -------------------------------------------------------------------------------------

  private openRealtime(): void {
    const { OPENAI_REALTIME_URL, REALTIME_MODEL, OPENAI_API_KEY } = this.ctx.config;
    const url = new URL(OPENAI_REALTIME_URL);
    url.searchParams.set('model', REALTIME_MODEL);
    const socket = new WebSocket(url, {
      headers: { Authorization: `Bearer ${OPENAI_API_KEY}` },
      // Compression would add latency to every audio frame for little gain on base64 μ-law.
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.openai = socket;
    socket.on('open', () => {
      if (this.state !== 'starting') return;
      const loaded = this.call!.loaded;
      this.sendRealtime(this.sessionEvent(loaded));
      this.sendRealtime(openingResponse(loaded.type!.initialMessage));
      this.responseRequested = true;
      // Caller audio sent after the session.update is read as μ-law (events are applied in order).
      for (const frame of this.queuedAudio) socket.send(frame);
      this.queuedAudio = [];
      this.state = 'open';
    });
    socket.on('message', (data) => this.onRealtimeMessage(data));
    socket.on('error', (err) => this.ctx.log.warn({ err: err.message, conversationId: this.call?.loaded.conversation.id }, 'realtime socket error'));
    socket.on('close', (code) => {
      if (this.draining) return this.shutdown();
      if (this.state === 'closed' || this.ending) return;
      this.politeEnd(`the realtime session closed (${code})`);
    });
  }

  private sendRealtime(event: RealtimeClientEvent): void {
    if (this.openai?.readyState === WebSocket.OPEN) this.openai.send(JSON.stringify(event));
  }

  private onRealtimeMessage(data: RawData): void {
    let event: Record<string, any>;
    try {
      event = JSON.parse(data.toString());
    } catch {
      return;
    }
    switch (event.type) {
      case 'response.output_audio.delta':
        this.onAgentAudio(event.item_id, event.delta);
        break;
      case 'input_audio_buffer.speech_started':
        this.latency.speechStarted();
        this.onBargeIn(event.item_id);
        break;
      case 'input_audio_buffer.speech_stopped':
        this.latency.speechStopped();
        break;
      case 'conversation.item.input_audio_transcription.completed':
        this.store('PROSPECT', event.item_id, event.transcript);
        this.callerSaid(event.transcript);
        this.transcribed(event.item_id);
        break;
      case 'conversation.item.input_audio_transcription.failed':
        this.transcribed(event.item_id);
        break;
      case 'response.output_audio_transcript.done':
        this.store('AGENT', event.item_id, event.transcript);
        break;
      case 'response.created':
        this.responseActive = true;
        this.responseRequested = false;
        this.responseHadAudio = false;
        break;
      case 'response.function_call_arguments.done':
        this.toolCalls.push({ name: event.name, callId: event.call_id, arguments: event.arguments ?? '' });
        break;
      case 'response.done':
        this.onResponseDone(event.response ?? {});
        break;
      case 'error':
        this.ctx.log.warn({ conversationId: this.call?.loaded.conversation.id, error: event.error?.message, code: event.error?.code }, 'realtime error event');
        // A refused response.create never starts: a hang-up or transfer must not wait for it.
        if (this.responseRequested && !this.responseActive) {
          this.responseRequested = false;
          this.maybeRunAction();
        }
        break;
    }
  }

  /** Agent audio goes out at once, in pieces of at most 60 ms, each followed by a mark. */
  private onAgentAudio(itemId: unknown, delta: unknown): void {
    if (typeof itemId !== 'string' || !isBase64(delta) || this.truncated.has(itemId)) return;
    if (!this.startedAt.has(itemId)) this.startedAt.set(itemId, new Date());
    this.responseHadAudio = true;
    for (const piece of splitPayload(delta)) {
      this.sendTwilio(twilioMedia(this.streamSid, piece));
      this.sendTwilio(twilioMark(this.streamSid, this.playback.sent(itemId, piece)));
    }
    // Measured once the audio is on its way; the write runs beside the call.
    const latencyMs = this.latency.audioSent();
    if (latencyMs !== null && this.call) this.track(storeResponseLatency(this.ctx, this.call.loaded.conversation.id, latencyMs));
  }

  /**
   * The caller speaks: Twilio drops the audio it still holds (`clear`) and the model is told how much of its
   * item was heard (`conversation.item.truncate`), so it neither keeps talking nor believes it said the rest.
   */
  private onBargeIn(itemId: unknown): void {
    if (typeof itemId === 'string') {
      this.startedAt.set(itemId, new Date());
      this.untranscribed.add(itemId);
    }
    this.toolCallsThisTurn = 0;
    if (this.draining) return;
    this.sendTwilio(twilioClear(this.streamSid));
    const cut = this.playback.interrupt();
    if (cut) {
      this.truncated.add(cut.itemId);
      this.sendRealtime({ type: 'conversation.item.truncate', item_id: cut.itemId, content_index: 0, audio_end_ms: cut.audioEndMs });
    }
    this.maybeRunAction();
  }

  private store(role: 'PROSPECT' | 'AGENT', itemId: unknown, transcript: unknown): void {
    if (!this.call || typeof itemId !== 'string' || typeof transcript !== 'string') return;
    // The line is dated when it was spoken (speech start / first audio), so the transcript reads in order
    // even though the caller's transcription finishes after the agent has begun answering.
    const spokenAt = this.startedAt.get(itemId) ?? new Date();
    this.startedAt.delete(itemId);
    // Stored one after the other, so lines spoken in the same millisecond keep the order of their events.
    const conversation = this.call.loaded.conversation;
    const write = this.transcripts.then(() => storeTranscript(this.ctx, conversation, role, itemId, transcript, spokenAt));
    this.transcripts = write.catch(() => {});
    this.track(write);
  }

  private onResponseDone(response: { usage?: RealtimeResponseUsage; output?: { type?: string; name?: string; call_id?: string; arguments?: string }[] }): void {
    this.responseActive = false;
    if (response.usage && this.call) {
      this.track(bookRealtimeUsage(this.ctx, this.call.loaded.conversation.id, this.ctx.config.REALTIME_MODEL, response.usage));
    }
    const calls = this.toolCalls.splice(0);
    for (const item of response.output ?? []) {
      if (item.type === 'function_call' && item.call_id && !calls.some((c) => c.callId === item.call_id)) {
        calls.push({ name: item.name ?? '', callId: item.call_id, arguments: item.arguments ?? '' });
      }
    }
    // Tool calls are answered after response.done: a response.create while one is active would be refused.
    // They run one batch at a time, so two quick advance_phase calls cannot both move from the same phase.
    if (calls.length > 0) {
      const saidSomething = this.responseHadAudio;
      this.toolChain = this.toolChain.then(() => (this.state === 'closed' ? undefined : this.runTools(calls, saidSomething)));
      this.track(this.toolChain);
    }
    this.maybeRunAction();
  }

  private async runTools(calls: ToolCall[], saidSomething: boolean): Promise<void> {
    const loaded = this.call!.loaded;
    let wantResponse = false;
    let sessionChanged = false;
    for (const call of calls) {
      let output: Record<string, unknown>;
      if (call.name === 'advance_phase' && this.phase !== null) {
        wantResponse = true;
        try {
          const now = await advancePhase(this.ctx, loaded, this.phase);
          this.phase = this.workingPhaseOf(now, null);
          sessionChanged = true;
          output = this.phase === null ? { ok: true, ended: true, next: 'Say goodbye, then call end_call.' } : { ok: true, phase: this.phase + 1 };
        } catch (err) {
          // The model still gets its answer (it waits for one); the call goes on in the same phase.
          this.ctx.log.error({ err: err instanceof Error ? err.message : String(err), conversationId: loaded.conversation.id }, 'advance_phase failed');
          output = { ok: false, error: 'The phase could not be changed; carry on with the current goal.' };
        }
      } else if (call.name === 'end_call') {
        this.pendingAction ??= { kind: 'hangup' };
        output = { ok: true };
        // A model that hung up without a word gets one more response for its goodbye.
        wantResponse ||= !saidSomething;
      } else if (call.name === 'transfer_call' && this.transferNumber) {
        this.pendingAction = { kind: 'transfer', number: this.transferNumber };
        output = { ok: true };
        wantResponse ||= !saidSomething;
      } else if (call.name === KNOWLEDGE_TOOL && this.knowledgeCollections.length > 0) {
        output = await runKnowledgeTool(this.ctx, this.knowledgeCollections, call.arguments);
        wantResponse = true;
      } else if (this.toolbox?.definitions.some((d) => d.name === call.name)) {
        output = await runAgentTool(this.ctx, loaded.conversation.id, this.toolbox, call.name, call.arguments, this.toolCallsThisTurn, {
          settled: () => this.callerTranscribed(),
          lastLine: () => this.lastCallerLine,
        });
        this.toolCallsThisTurn += 1;
        if (this.toolbox.confirmFirst(call.name)) this.holdingToolCall = Boolean(output.awaitingConfirmation);
        wantResponse = true;
      } else {
        output = { ok: false, error: `${call.name} is not available now.` };
        wantResponse = true;
      }
      this.sendRealtime({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.callId, output: JSON.stringify(output) } });
    }
    if (sessionChanged) this.sendRealtime(this.sessionEvent(loaded));
    if (wantResponse) {
      this.sendRealtime({ type: 'response.create' });
      this.responseRequested = true;
    }
    if (this.pendingAction && !this.actionTimer) {
      this.actionTimer = setTimeout(() => this.runAction(), ACTION_TIMEOUT_MS);
      this.actionTimer.unref();
    }
    this.maybeRunAction();
  }

  /** Hang-up and transfer wait until no response is coming and every piece of audio has played. */
  private maybeRunAction(): void {
    if (!this.pendingAction || this.responseActive || this.responseRequested || !this.playback.idle) return;
    this.runAction();
  }

  private runAction(): void {
    const action = this.pendingAction;
    if (!action || this.actionStarted || this.state === 'closed') return;
    this.actionStarted = true;
    this.ending = true;
    if (this.actionTimer) clearTimeout(this.actionTimer);
    const update = action.kind === 'hangup' ? ({ status: 'completed' } as const) : { twiml: dialTwiml(action.number) };
    // Twilio then stops the stream itself (`stop`), which closes both sockets. Should the update fail, a
    // hang-up still happens by closing the stream: the call's TwiML has nothing after <Connect>.
    this.track(
      updateCall(this.ctx, this.call!.account, this.callSid, update).catch((err: unknown) => {
        if (action.kind === 'hangup') this.shutdown();
        throw err;
      }),
    );
  }

  /** Something failed mid-call: the caller hears the type's errorPrompt and the call ends (no dead air). */
  private politeEnd(reason: string): void {
    if (this.state === 'closed' || this.ending) return;
    this.ending = true;
    this.ctx.log.warn({ conversationId: this.call?.loaded.conversation.id, reason }, 'realtime call ended early');
    this.closeRealtime();
    const call = this.call;
    if (!call || !this.callSid) return this.shutdown();
    this.track(updateCall(this.ctx, call.account, this.callSid, { twiml: goodbyeTwiml(call.loaded.type?.errorPrompt) }).finally(() => this.shutdown()));
  }

  /** A stream we will not serve: closed with 1008 before anything is opened or stored. */
  private refuse(reason: string): void {
    if (this.state === 'closed') return;
    this.ctx.log.warn({ reason }, 'media stream refused');
    if (this.twilio.readyState === WebSocket.OPEN) this.twilio.close(1008, 'Forbidden');
    this.shutdown();
  }

  // ---- lifecycle ---------------------------------------------------------------------------------------

  /**
   * Twilio's side ended (`stop` or the socket closed). When the caller was still being transcribed, the
   * session stays open a moment (no audio flows any more) so their last line is stored, then all closes.
   */
  private callerGone(): void {
    if (this.state === 'closed' || this.draining) return;
    if (this.state !== 'open' || this.untranscribed.size === 0) return this.shutdown();
    this.draining = true;
    this.pendingAction = null;
    if (this.twilio.readyState === WebSocket.OPEN) this.twilio.close(1000);
    const timer = setTimeout(() => this.shutdown(), TRANSCRIPT_GRACE_MS);
    timer.unref();
    this.graceTimer = timer;
  }

  /** The caller's line: kept for a held tool call's yes; anything else drops the held call (as in a chat). */
  private callerSaid(transcript: unknown): void {
    if (typeof transcript !== 'string' || !transcript.trim()) return;
    this.lastCallerLine = { text: transcript, at: Date.now() };
    if (this.holdingToolCall && !isConfirmation(transcript) && this.call) {
      this.holdingToolCall = false;
      // In the tool chain, so a call the model makes after this line is held (or run) after the drop, never before.
      const conversationId = this.call.loaded.conversation.id;
      this.toolChain = this.toolChain.then(async () => void (await takePendingToolCall(this.ctx, conversationId)));
      this.track(this.toolChain);
    }
  }

  /** Resolves once every caller item that started is transcribed, or after TRANSCRIPT_GRACE_MS. */
  private callerTranscribed(): Promise<void> {
    if (this.untranscribed.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, TRANSCRIPT_GRACE_MS);
      timer.unref();
      this.transcribedWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private transcribed(itemId: unknown): void {
    if (typeof itemId === 'string') this.untranscribed.delete(itemId);
    if (this.untranscribed.size === 0) for (const resolve of this.transcribedWaiters.splice(0)) resolve();
    if (this.draining && this.untranscribed.size === 0) this.shutdown();
  }

  private closeRealtime(): void {
    const socket = this.openai;
    if (!socket) return;
    if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
    else if (socket.readyState === WebSocket.OPEN) socket.close(1000);
  }

  /** Closes both sockets (idempotent): on Twilio's `stop`, either socket closing, or the server closing. */
  shutdown(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearStartTimer();
    if (this.actionTimer) clearTimeout(this.actionTimer);
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.closeRealtime();
    if (this.twilio.readyState === WebSocket.OPEN) this.twilio.close(1000);
    this.onClosed(this);
  }

  /** True once `start` has arrived and the stream's signature and call checked out. */
  get verified(): boolean {
    return this.call !== null;
  }

  /** Resolves once every database write and Twilio request of this call has settled. */
  async drained(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private clearStartTimer(): void {
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = null;
  }

  /** Runs side work beside the audio; a failure is logged, never an unhandled rejection. */
  private track(promise: Promise<unknown>): void {
    const tracked = promise
      .catch((err: unknown) =>
        this.ctx.log.error({ err: err instanceof Error ? err.message : String(err), conversationId: this.call?.loaded.conversation.id }, 'realtime bridge task failed'),
      )
      .finally(() => this.work.delete(tracked));
    this.work.add(tracked);
  }
}
