#!/usr/bin/env bash
# Regenerates test/fixtures/speech/: each passage of passages.json spoken by Festival's
# cmu_us_slt_arctic_hts voice (pocketsphinx recognises it; espeak-ng it does not), then
# encoded into the eight import formats. Needs: festival festvox-us-slt-hts ffmpeg node.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/test/fixtures/speech"
passages="$out/passages.json"

for tool in text2wave ffmpeg node; do
  command -v "$tool" >/dev/null || { echo "make-fixtures: '$tool' not found (apt-get install festival festvox-us-slt-hts ffmpeg)" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# -bitexact keeps encoder version strings out of the files so re-runs give stable bytes.
ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
audio=(-ac 1 -ar 16000 -map_metadata -1 -fflags +bitexact -flags:a +bitexact)
# ffmpeg's native AAC encoder at 16 kHz/32 kbit/s smears consonants enough to cost pocketsphinx
# whole words; 24 kHz/48 kbit/s keeps the files around 40 KB and the recognition close to WAV's.
aac=(-ac 1 -ar 24000 -map_metadata -1 -fflags +bitexact -flags:a +bitexact -c:a aac -b:a 48k)

node -e 'const p = require(process.argv[1]); for (const [n, v] of Object.entries(p)) console.log(n + "\t" + v.text);' "$passages" |
while IFS=$'\t' read -r name text; do
  printf '%s\n' "$text" | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o "$tmp/$name.raw.wav"
  src="$tmp/$name.raw.wav"

  ff -i "$src" "${audio[@]}" -c:a pcm_s16le "$out/$name.wav"
  ff -i "$src" "${audio[@]}" -c:a flac -sample_fmt s16 -compression_level 12 "$out/$name.flac"
  ff -i "$src" "${audio[@]}" -c:a libmp3lame -b:a 32k -write_xing 1 "$out/$name.mp3"
  ff -i "$src" "${audio[@]}" -c:a libvorbis -q:a 2 "$out/$name.ogg"
  ff -i "$src" "${audio[@]}" -c:a libopus -b:a 24k -f webm "$out/$name.webm"
  ff -i "$src" "${aac[@]}" -f adts "$out/$name.aac"
  # M4A: audio-only MPEG-4 with the "M4A " brand, as phones and Voice Memos write it.
  ff -i "$src" "${aac[@]}" -f ipod "$out/$name.m4a"
  # MP4: like a screen/meeting recording, a (tiny, black, 1 fps) video track beside the audio.
  duration="$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$src")"
  ff -f lavfi -i "color=c=black:s=32x32:r=1:d=$duration" -i "$src" -map 0:v -map 1:a \
    -c:v libx264 -preset veryslow -tune stillimage -pix_fmt yuv420p -flags:v +bitexact \
    "${aac[@]}" -shortest -f mp4 "$out/$name.mp4"
  echo "make-fixtures: $name ($duration s)" >&2
done

ls -l "$out" >&2
