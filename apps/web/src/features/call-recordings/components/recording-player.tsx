import { Alert, Button, Card, Group, ScrollArea, Slider, Stack, Text, Title } from '@mantine/core';
import type { CallRecording } from '@sales-agent/shared/schemas/call-recording';
import { useEffect, useRef, useState } from 'react';
import { recordingDownloadUrl, recordingStreamUrl } from '../api/recordings.ts';
import { formatClock, formatDuration } from './statistics.ts';

export const UNSUPPORTED_AUDIO_MESSAGE = 'This audio format is not supported by your browser. Please download the file to play it.';

type Problem = { kind: 'unsupported' } | { kind: 'load'; reason: string } | { kind: 'play'; reason: string };

/** MediaError codes (https://html.spec.whatwg.org/multipage/media.html#mediaerror) in words. */
const MEDIA_ERROR_TEXT: Record<number, string> = {
  1: 'loading was aborted',
  2: 'a network error occurred',
  3: 'the file could not be decoded',
  4: 'the source is not supported',
};

/**
 * Spec §2.12 inline player: play/pause, seek bar, time display and the transcript; spec §8.3 errors with
 * Download (unsupported format) or Retry (load error).
 */
export function RecordingPlayer({ recording, autoPlay = false }: { recording: CallRecording; autoPlay?: boolean }) {
  const audioRef = useRef<HTMLAudioElement>(null);
  const cardRef = useRef<HTMLDivElement>(null);
  const [playing, setPlaying] = useState(false);
  const [current, setCurrent] = useState(0);
  const [mediaDuration, setMediaDuration] = useState<number | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    setPlaying(false);
    setCurrent(0);
    setMediaDuration(null);
    const audio = audioRef.current;
    setProblem(audio && audio.canPlayType(recording.mimeType) === '' ? { kind: 'unsupported' } : null);
  }, [recording.id, recording.mimeType]);

  const duration = mediaDuration && Number.isFinite(mediaDuration) ? mediaDuration : recording.duration;

  const onMediaError = () => {
    const error = audioRef.current?.error;
    if (!error) return;
    if (error.code === 4) setProblem({ kind: 'unsupported' });
    else setProblem({ kind: 'load', reason: error.message || MEDIA_ERROR_TEXT[error.code] || 'unknown error' });
  };

  const startPlaying = async (audio: HTMLAudioElement) => {
    try {
      await audio.play();
    } catch (err) {
      // A source error also rejects play(); the error event reports that one.
      const message = (err as { message?: unknown } | null)?.message;
      if (!audio.error) setProblem({ kind: 'play', reason: typeof message === 'string' && message ? message : String(err) });
    }
  };

  const togglePlay = async () => {
    const audio = audioRef.current;
    if (!audio) return;
    if (!audio.paused) {
      audio.pause();
      return;
    }
    await startPlaying(audio);
  };

  // Play in the recordings table (issue 24): the player below the table comes into view and plays at once.
  useEffect(() => {
    if (!autoPlay) return;
    cardRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'nearest' });
    const audio = audioRef.current;
    if (audio && audio.canPlayType(recording.mimeType) !== '') void startPlaying(audio);
    // Once per recording opened (startPlaying only sets state).
  }, [autoPlay, recording.id]);

  const retry = () => {
    setProblem(null);
    audioRef.current?.load();
  };

  const seek = (seconds: number) => {
    const audio = audioRef.current;
    if (!audio) return;
    audio.currentTime = seconds;
    setCurrent(seconds);
  };

  return (
    <Card withBorder data-testid="recording-player" ref={cardRef}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Player: {recording.originalName}</Title>
          <Text size="sm" c="dimmed">
            {recording.user.email} · {formatDuration(recording.duration)}
          </Text>
        </Group>
        <audio
          ref={audioRef}
          src={recordingStreamUrl(recording.id)}
          preload="metadata"
          onLoadedMetadata={(e) => setMediaDuration(e.currentTarget.duration)}
          onDurationChange={(e) => setMediaDuration(e.currentTarget.duration)}
          onTimeUpdate={(e) => setCurrent(e.currentTarget.currentTime)}
          onSeeked={(e) => setCurrent(e.currentTarget.currentTime)}
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
          onEnded={() => setPlaying(false)}
          onError={onMediaError}
        >
          <track kind="captions" />
        </audio>

        {problem?.kind === 'unsupported' ? (
          <Alert color="orange" role="alert">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{UNSUPPORTED_AUDIO_MESSAGE}</Text>
              <Button component="a" href={recordingDownloadUrl(recording.id)} size="xs" variant="light">
                Download
              </Button>
            </Stack>
          </Alert>
        ) : (
          <>
            <Group gap="md" wrap="nowrap">
              <Button onClick={togglePlay} w={90} variant="filled" aria-label={playing ? 'Pause' : 'Play audio'}>
                {playing ? 'Pause' : 'Play'}
              </Button>
              <Slider
                style={{ flex: 1 }}
                min={0}
                max={Math.max(duration, 0.1)}
                step={0.1}
                value={Math.min(current, Math.max(duration, 0.1))}
                onChange={seek}
                label={(v) => formatClock(v)}
                thumbLabel="Seek"
              />
              <Text size="sm" ff="monospace" data-testid="player-time" style={{ whiteSpace: 'nowrap' }}>
                {formatClock(current)} / {formatClock(duration)}
              </Text>
            </Group>
            {problem?.kind === 'load' && (
              <Alert color="red" role="alert">
                <Group justify="space-between">
                  <Text size="sm">Failed to load audio: {problem.reason}</Text>
                  <Group gap="xs">
                    <Button size="xs" variant="light" onClick={retry}>
                      Retry
                    </Button>
                    <Button size="xs" variant="subtle" component="a" href={recordingDownloadUrl(recording.id)}>
                      Download
                    </Button>
                  </Group>
                </Group>
              </Alert>
            )}
            {problem?.kind === 'play' && (
              <Alert color="red" role="alert">
                <Text size="sm">Playback error: {problem.reason}</Text>
              </Alert>
            )}
          </>
        )}

        <div>
          <Text fw={600} size="sm" mb={4}>
            Transcript
          </Text>
          {recording.transcript !== null ? (
            <ScrollArea.Autosize mah={240} type="auto">
              <Stack gap={2} data-testid="player-transcript">
                {transcriptLines(recording.transcript).map((line, i) => (
                  <Text key={i} size="sm">
                    {line}
                  </Text>
                ))}
              </Stack>
            </ScrollArea.Autosize>
          ) : (
            <Text size="sm" c="dimmed">
              No transcript yet. Use Generate Transcript in the table.
            </Text>
          )}
        </div>
      </Stack>
    </Card>
  );
}

/** A transcript's non-empty lines. */
export const transcriptLines = (text: string) => text.split(/\r?\n/).filter((line) => line.trim() !== '');
