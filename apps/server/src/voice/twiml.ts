import twilio from 'twilio';
import type { Utterance } from './speech.ts';

/**
 * TwiML documents of the voice callbacks, built with the official SDK's VoiceResponse (which escapes every
 * attribute and text). Each function answers the XML text to send as text/xml.
 */
type VoiceResponse = InstanceType<typeof twilio.twiml.VoiceResponse>;
type Sayer = Pick<VoiceResponse, 'play' | 'say'>;
type SayAttributes = Parameters<VoiceResponse['say']>[0];
type GatherAttributes = NonNullable<Parameters<VoiceResponse['gather']>[0]>;

function speak(target: Sayer, utterance: Utterance): void {
  if ('play' in utterance) target.play(utterance.play);
  else target.say({ language: utterance.language as NonNullable<SayAttributes>['language'] }, utterance.say);
}

/**
 * The realtime bridge: `<Connect><Stream url><Parameter name="conversationUuid"/></Stream></Connect>`. With
 * `recordingCallback` (inbound calls, which no REST create asked to record) the call is first recorded with
 * `<Start><Recording>`, whose completed recording is reported to that URL.
 */
export function streamTwiml(streamUrl: string, conversationUuid: string, options: { recordingCallback?: string; notices?: Utterance[] } = {}): string {
  const response = new twilio.twiml.VoiceResponse();
  if (options.recordingCallback) {
    response.start().recording({
      recordingStatusCallback: options.recordingCallback,
      recordingStatusCallbackMethod: 'POST',
      recordingStatusCallbackEvent: ['completed'],
    });
  }
  // The call's notices (speech.ts callNotices), recorded, before the stream connects the agent.
  for (const notice of options.notices ?? []) speak(response, notice);
  response.connect().stream({ url: streamUrl }).parameter({ name: 'conversationUuid', value: conversationUuid });
  return response.toString();
}

/**
 * Speaks the lines (after `before`, outside it) inside a speech <Gather> (the caller may talk over them) whose answer goes to `action`.
 * actionOnEmptyResult makes silence come back to us too, so two silent turns can end the call politely.
 */
export function gatherTwiml(lines: Utterance[], action: string, language: string, before: Utterance[] = []): string {
  const response = new twilio.twiml.VoiceResponse();
  // Said before the <Gather> (the call's notices): the caller cannot talk over them.
  for (const line of before) speak(response, line);
  const gather = response.gather({
    input: ['speech'],
    speechTimeout: 'auto',
    action,
    method: 'POST',
    actionOnEmptyResult: true,
    language: language as GatherAttributes['language'],
  });
  for (const line of lines) speak(gather, line);
  return response.toString();
}

/** Speaks the lines, then hangs up. */
export function hangupTwiml(lines: Utterance[]): string {
  const response = new twilio.twiml.VoiceResponse();
  for (const line of lines) speak(response, line);
  response.hangup();
  return response.toString();
}

/** Transfers the live call to a person: `<Dial>number</Dial>` (the realtime agent's transfer tool). */
export function dialTwiml(number: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.dial(number);
  return response.toString();
}

/** Says `text` (when there is any) in Twilio's default voice, then hangs up: a realtime call that failed. */
export function goodbyeTwiml(text: string | undefined): string {
  const response = new twilio.twiml.VoiceResponse();
  if (text?.trim()) response.say(text.trim());
  response.hangup();
  return response.toString();
}
