import type { Config } from '../../config.js';

// When and how a recording is cut. Chunks are 16 kHz mono 16-bit WAV, decoded by ffmpeg from the
// recording: every server accepts WAV, Whisper models hear 16 kHz mono anyway, a chunk's size is known
// in advance (32,000 bytes a second), and cutting decoded samples is exact for all eight formats.

import { PCM_BYTES_PER_SECOND, PCM_SAMPLE_RATE } from '../../audio/wav.js';

/** Chunks are 16 kHz mono 16-bit PCM WAV (src/audio/wav.ts). */
export const CHUNK_SAMPLE_RATE = PCM_SAMPLE_RATE;
export const CHUNK_BYTES_PER_SECOND = PCM_BYTES_PER_SECOND;
/** WAV header and slack under max_upload_mb. */
const UPLOAD_SLACK_BYTES = 64 * 1024;
/**
 * Consecutive chunks share this much audio. A word cut at a chunk's end is whole at the start of the
 * next one; recognisers also do worst in the first and last second of an input (no context), so the
 * overlap must hold a word or two on each side of the cut we choose in its middle: ~4 s does, and
 * costs under 1 % more audio with 10-minute chunks.
 */
export const CHUNK_OVERLAP_MS = 4_000;

export interface ChunkPlan {
  /** Audio each chunk adds; a chunk's file holds overlapMs more (except the first). */
  chunkMs: number;
  overlapMs: number;
  /** Estimated from the duration; the real count follows the decoded audio. */
  chunks: number;
  reason: 'duration' | 'size';
}

/** Null when the recording goes in one request. */
export function chunkPlan(audio: { durationMs: number; size: number }, t: Pick<Config['transcription'], 'chunkSeconds' | 'maxUploadBytes'>): ChunkPlan | null {
  const longer = audio.durationMs > t.chunkSeconds * 1000;
  const larger = audio.size > t.maxUploadBytes;
  if (!longer && !larger) return null;
  // A chunk file (chunk + overlap) must fit under max_upload_mb.
  const fitsMs = Math.floor(((t.maxUploadBytes - UPLOAD_SLACK_BYTES) / CHUNK_BYTES_PER_SECOND) * 1000);
  let chunkMs = Math.min(t.chunkSeconds * 1000, fitsMs - CHUNK_OVERLAP_MS);
  chunkMs = Math.max(1000, chunkMs);
  const overlapMs = Math.min(CHUNK_OVERLAP_MS, Math.floor(chunkMs / 4));
  return { chunkMs, overlapMs, chunks: Math.max(1, Math.ceil(audio.durationMs / chunkMs)), reason: longer ? 'duration' : 'size' };
}
