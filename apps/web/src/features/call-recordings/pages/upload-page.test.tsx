import type { UploadResult } from '@sales-agent/shared/schemas/call-recording';
import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import '../../../test/stub-fetch.ts';
import { matchMediaAnswering } from '../../../test/browser-stubs.ts';
import { findToast, renderApp } from '../../../test/render-app.tsx';
import UploadPage from './upload-page.tsx';

/**
 * The upload page's rows after the server's answer (issue 24 item 8): with one refused file among good ones,
 * the good rows say Uploaded and the bad row says why; an all-good upload clears the list as before. The
 * XMLHttpRequest is replaced by the answer; uploadOutcomes (which row is which) is the real one.
 */
const uploadRecordings = vi.hoisted(() => vi.fn());
vi.mock('../api/upload.ts', async (importOriginal) => ({ ...(await importOriginal<typeof import('../api/upload.ts')>()), uploadRecordings }));

const REASON = 'Only audio and video files are allowed.';
const audio = (name: string) => new File([new Uint8Array(2048)], name, { type: 'audio/mpeg', lastModified: 1 });
const recording = (id: number, originalName: string) => ({ id, originalName }) as unknown as UploadResult['recordings'][number];

async function choose(files: File[]) {
  const input = document.querySelector<HTMLInputElement>('input[type=file]');
  if (!input) throw new Error('no file input');
  fireEvent.change(input, { target: { files } });
  const table = await screen.findByRole('table', { name: 'Selected files' });
  for (const file of files) await within(table).findByText(file.name);
  return table;
}

const selectedFiles = () => screen.getByRole('table', { name: 'Selected files' });
const rowOf = (name: string) => {
  const row = within(selectedFiles()).getByText(name).closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
};

beforeEach(() => {
  uploadRecordings.mockReset();
  // A wide screen: mantine-datatable shows a column only while its media query matches.
  vi.stubGlobal('matchMedia', matchMediaAnswering(true));
});

describe('UploadPage', () => {
  it('marks the refused file on its row with the reason and the good ones as uploaded', async () => {
    uploadRecordings.mockResolvedValue({
      message: '2 recordings uploaded. 1 file was not uploaded.',
      recordings: [recording(1, 'good one.mp3'), recording(2, 'good two.mp3')],
      refused: [{ index: 1, name: 'broken.mp3', code: 'NOT_MEDIA', reason: REASON }],
    } satisfies UploadResult);
    renderApp(<UploadPage />);
    const chosen = [audio('good one.mp3'), audio('broken.mp3'), audio('good two.mp3')];
    const table = await choose(chosen);
    expect(within(table).queryByText('Status')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Upload' }));
    await screen.findByText(`Not uploaded: ${REASON}`);
    expect(within(rowOf('broken.mp3')).getByText(`Not uploaded: ${REASON}`)).toBeTruthy();
    expect(uploadRecordings).toHaveBeenCalledWith(chosen, expect.any(Function));
    expect(within(rowOf('good one.mp3')).getByText('Uploaded')).toBeTruthy();
    expect(within(rowOf('good two.mp3')).getByText('Uploaded')).toBeTruthy();
    expect(within(rowOf('good one.mp3')).queryByText(/Not uploaded/)).toBeNull();
    expect(screen.getByTestId('upload-error').textContent).toContain('1 file was not uploaded. The reason is shown next to it.');
    expect(screen.getByText(/2 recordings were uploaded\./)).toBeTruthy();

    // Nothing is sent twice: every row has its outcome.
    fireEvent.click(screen.getByRole('button', { name: 'Upload' }));
    expect(screen.getByTestId('upload-error').textContent).toContain('Please select at least one file to upload');
    expect(uploadRecordings).toHaveBeenCalledTimes(1);

    // A new selection starts afresh: the last upload's rows go.
    const fresh = await choose([audio('fixed.mp3')]);
    expect(within(fresh).queryByText('broken.mp3')).toBeNull();
    expect(within(fresh).queryByText('good one.mp3')).toBeNull();
    expect(within(fresh).queryByText('Status')).toBeNull();
  });

  it('clears the list after an all-good upload and says how many were uploaded', async () => {
    uploadRecordings.mockResolvedValue({ message: '2 recordings uploaded.', recordings: [recording(1, 'a.mp3'), recording(2, 'b.mp3')] } satisfies UploadResult);
    renderApp(<UploadPage />);
    await choose([audio('a.mp3'), audio('b.mp3')]);
    fireEvent.click(screen.getByRole('button', { name: 'Upload' }));
    await findToast('2 recordings uploaded.');
    expect(screen.queryByRole('table', { name: 'Selected files' })).toBeNull();
    expect(screen.getByText(/2 recordings were uploaded\./)).toBeTruthy();
    expect(screen.queryByTestId('upload-error')).toBeNull();
  });
});
