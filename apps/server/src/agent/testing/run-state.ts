/** What a sandbox run (sandbox-run.ts) tracks while it plays; criteria.ts reads it when the run is over. */
export interface TranscriptLine {
  role: 'PROSPECT' | 'AGENT' | 'SYSTEM';
  text: string;
  /** The phase the conversation was in when the line was written. */
  phase: number;
}

export interface SandboxState {
  phase: number;
  status: 'working' | 'ended' | 'needs-human' | 'errored' | 'ignored';
  /** Highest working phase reached (N when ended). */
  maxPhase: number;
  transcript: TranscriptLine[];
  toolCalls: { name: string; arguments: Record<string, unknown>; ok: boolean; result: unknown }[];
  booked: boolean;
  /** Values the agent captured (the arguments its tools carried, e.g. name and email). */
  fields: Record<string, string>;
  turns: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  reason: string | null;
}

