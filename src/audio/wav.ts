// The one WAV shape Syntheo writes: 16 kHz mono 16-bit PCM (what speech recognisers want; the
// worker's transcription chunks, and the test and benchmark recordings).

export const PCM_SAMPLE_RATE = 16_000;
export const PCM_BYTES_PER_SECOND = PCM_SAMPLE_RATE * 2;

/** Canonical 44-byte RIFF/WAVE header for `dataBytes` of 16 kHz mono 16-bit PCM. */
export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(PCM_SAMPLE_RATE, 24);
  h.writeUInt32LE(PCM_BYTES_PER_SECOND, 28);
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(Math.min(0xffffffff, dataBytes), 40);
  return h;
}
