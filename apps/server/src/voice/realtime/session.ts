import { readConversationTypeConfig, REALTIME_VOICES } from '@sales-agent/shared/schemas/conversation-type-config';
import type { RealtimeClientEvent, RealtimeFunctionTool } from 'openai/resources/realtime/realtime';
import type { LoadedConversation } from '../../conversations/conversation-store.ts';

export const DEFAULT_REALTIME_VOICE = 'marin';
/** Model that transcribes the caller (input_audio_transcription); its text becomes PROSPECT messages. */
export const INPUT_TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * The voice settings of a type's config that the bridge reads (docs/voice.md "Realtime"): `voice.realtimeVoice`
 * (an OpenAI voice; `voice.name` is used when it is one, since Azure names such as en-US-JennyNeural are not)
 * and `voice.transferNumber` (E.164, the human the transfer tool dials). Read leniently: a bad value is ignored.
 */
export function voiceSettingsOf(configText: string | null | undefined): { voice: string; transferNumber: string | null } {
  const voice = (readConversationTypeConfig(configText).voice ?? {}) as Record<string, unknown>;
  const known = (v: unknown): v is string => typeof v === 'string' && (REALTIME_VOICES as readonly string[]).includes(v);
  const chosen = known(voice.realtimeVoice) ? voice.realtimeVoice : known(voice.name) ? voice.name : DEFAULT_REALTIME_VOICE;
  const transfer = typeof voice.transferNumber === 'string' && E164.test(voice.transferNumber.trim()) ? voice.transferNumber.trim() : null;
  return { voice: chosen, transferNumber: transfer };
}

/** The system instructions for one phase (null phase: not in a working phase, e.g. the last one passed). */
export function instructionsFor(loaded: LoadedConversation, phase: number | null, canTransfer: boolean): string {
  const type = loaded.type!;
  const parts = [
    type.rolePrompt.trim(),
    'You are talking with the prospect on a phone call. Speak naturally and briefly, one or two sentences at a time, and let the caller interrupt you.',
  ];
  const current = phase === null ? undefined : loaded.phases[phase];
  if (current) {
    parts.push(`Current goal (phase ${phase! + 1} of ${loaded.phases.length}): ${current.prompt.trim()}`);
    parts.push(`When this condition is met, call advance_phase: ${current.transitionPrompt.trim()}`);
  } else {
    parts.push('The conversation goals are complete: thank the caller, say goodbye and end the call.');
  }
  parts.push('When the conversation is over, say goodbye first and then call end_call.');
  if (canTransfer) parts.push('If the caller asks to speak with a person, tell them you are transferring them and call transfer_call.');
  return parts.join('\n\n');
}

const noArguments = (reasonHint: string) => ({
  type: 'object',
  properties: { reason: { type: 'string', description: reasonHint } },
  required: [],
  additionalProperties: false,
});

export function toolsFor(phase: number | null, canTransfer: boolean): RealtimeFunctionTool[] {
  const tools: RealtimeFunctionTool[] = [];
  if (phase !== null) {
    tools.push({
      type: 'function',
      name: 'advance_phase',
      description: "Call when the current phase's condition is met, to move to the next goal of the conversation.",
      parameters: noArguments('Why the condition is met.'),
    });
  }
  tools.push({
    type: 'function',
    name: 'end_call',
    description: 'Hang up after you have said goodbye.',
    parameters: noArguments('Why the call ends.'),
  });
  if (canTransfer) {
    tools.push({
      type: 'function',
      name: 'transfer_call',
      description: 'Transfer the caller to a human colleague (after telling them so).',
      parameters: noArguments('Why the caller wants a person.'),
    });
  }
  return tools;
}

/** session.update (GA shape): μ-law in and out, server VAD, caller transcription, the type's voice, tools. */
export function sessionUpdate(loaded: LoadedConversation, phase: number | null, voice: string, canTransfer: boolean): RealtimeClientEvent {
  return {
    type: 'session.update',
    session: {
      type: 'realtime',
      instructions: instructionsFor(loaded, phase, canTransfer),
      output_modalities: ['audio'],
      audio: {
        input: {
          format: { type: 'audio/pcmu' },
          turn_detection: { type: 'server_vad' },
          transcription: { model: INPUT_TRANSCRIPTION_MODEL },
        },
        output: { format: { type: 'audio/pcmu' }, voice },
      },
      tools: toolsFor(phase, canTransfer),
      tool_choice: 'auto',
    },
  };
}

/** The agent's opening line: the type's initialMessage, said as written. */
export function openingResponse(initialMessage: string | null): RealtimeClientEvent {
  const text = initialMessage?.trim();
  return {
    type: 'response.create',
    response: text
      ? { instructions: `Open the call by saying exactly this, then wait for the caller: ${JSON.stringify(text)}` }
      : { instructions: 'Open the call with a short greeting, then wait for the caller.' },
  };
}
