import { MantineProvider } from '@mantine/core';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { CallRecording } from '@sales-agent/shared/schemas/call-recording';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import { RecordingPlayer, transcriptLines, UNSUPPORTED_AUDIO_MESSAGE } from './recording-player.tsx';

const recording: CallRecording = {
  id: 7,
  userId: 1,
  user: { email: 'rep@example.com' },
  duration: 125,
  createdAt: '2025-05-01T10:00:00.000Z',
  transcript: 'Agent: Hello\n\nProspect: Hi there',
  fileExtension: 'mp3',
  mimeType: 'audio/mpeg',
  originalName: 'call.mp3',
  sizeBytes: 1000,
};

// Mantine reads browser APIs that jsdom lacks.
beforeAll(stubMissingBrowserApis);

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const renderPlayer = (r: CallRecording = recording) =>
  render(
    <MantineProvider>
      <RecordingPlayer recording={r} />
    </MantineProvider>,
  );

/** jsdom plays nothing; the browser's answers are set per test. */
const browserCanPlay = (answer: CanPlayTypeResult) => vi.spyOn(HTMLMediaElement.prototype, 'canPlayType').mockReturnValue(answer);

describe('RecordingPlayer', () => {
  it('shows the time display from the recording’s duration and the transcript lines', () => {
    browserCanPlay('maybe');
    renderPlayer();
    expect(screen.getByTestId('player-time').textContent).toBe('0:00 / 2:05');
    expect(screen.getByTestId('player-transcript').textContent).toBe('Agent: HelloProspect: Hi there');
    expect(screen.getByRole('slider', { name: 'Seek' })).toBeTruthy();
    expect(document.querySelector('audio')!.getAttribute('src')).toBe('/api/call-recording/7/stream');
  });

  it('offers Download when the browser cannot play the format', () => {
    browserCanPlay('');
    renderPlayer();
    expect(screen.getByRole('alert').textContent).toContain(UNSUPPORTED_AUDIO_MESSAGE);
    expect(screen.getByRole('link', { name: 'Download' }).getAttribute('href')).toBe('/api/call-recording/7/download');
    expect(screen.queryByRole('slider')).toBeNull();
  });

  it('shows "Failed to load audio: " with the reason and Retry on a load error, and Retry reloads', () => {
    browserCanPlay('probably');
    const load = vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => {});
    renderPlayer();
    const audio = document.querySelector('audio')!;
    Object.defineProperty(audio, 'error', { configurable: true, value: { code: 2, message: 'net::ERR_CONNECTION_RESET' } });
    act(() => {
      fireEvent.error(audio);
    });
    expect(screen.getByRole('alert').textContent).toContain('Failed to load audio: net::ERR_CONNECTION_RESET');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(load).toHaveBeenCalled();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows "Playback error: " with the reason when play() is refused', async () => {
    browserCanPlay('probably');
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockRejectedValue(new DOMException('The element has no supported sources.', 'NotSupportedError'));
    renderPlayer();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Play audio' }));
    });
    expect(screen.getByRole('alert').textContent).toBe('Playback error: The element has no supported sources.');
  });

  it('says when there is no transcript yet', () => {
    browserCanPlay('maybe');
    renderPlayer({ ...recording, transcript: null });
    expect(screen.getByText('No transcript yet. Use Generate Transcript in the table.')).toBeTruthy();
  });
});

describe('transcriptLines', () => {
  it('splits on line breaks and drops empty lines', () => {
    expect(transcriptLines('a\r\n\nb\n  \nc')).toEqual(['a', 'b', 'c']);
  });
});

describe('RecordingPlayer opened from the table (autoPlay)', () => {
  it('comes into view and plays at once; without autoPlay it waits for the Play button', async () => {
    browserCanPlay('maybe');
    const play = vi.spyOn(HTMLMediaElement.prototype, 'play').mockResolvedValue(undefined);
    const scroll = vi.fn();
    Element.prototype.scrollIntoView = scroll;
    renderPlayer();
    expect(play).not.toHaveBeenCalled();
    expect(scroll).not.toHaveBeenCalled();
    cleanup();
    await act(async () => {
      render(
        <MantineProvider>
          <RecordingPlayer recording={recording} autoPlay />
        </MantineProvider>,
      );
    });
    expect(play).toHaveBeenCalledTimes(1);
    expect(scroll).toHaveBeenCalledTimes(1);
    expect(scroll.mock.contexts[0]).toBe(screen.getByTestId('recording-player'));
  });
});
