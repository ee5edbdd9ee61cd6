#!/usr/bin/env bash
# Regenerates test/fixtures/video/: the spoken passages of test/fixtures/speech/*.wav in the containers
# people bring (OBS's MKV, QuickTime's MOV, AVI, MPEG-TS, Windows Media's WMA) and one MP4 with a video
# track and no audio. Tiny on purpose (32x32, 1 fps video; low-rate audio): a few tens of KB each.
# Needs: ffmpeg (Debian package `ffmpeg`). Byte-for-byte stable with -bitexact on Debian bookworm.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
speech="$root/test/fixtures/speech"
out="$root/test/fixtures/video"
mkdir -p "$out"
command -v ffmpeg >/dev/null || { echo "make-video-fixtures: ffmpeg not found (apt-get install ffmpeg)" >&2; exit 1; }

ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
seconds() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"; }
# A still, black picture beside the audio, as a screen or meeting recording has.
video() { echo -f lavfi -i "color=c=black:s=32x32:r=1:d=$(seconds "$1")"; }
x264=(-c:v libx264 -preset veryslow -tune stillimage -pix_fmt yuv420p -flags:v +bitexact)
common=(-map_metadata -1 -fflags +bitexact -flags:a +bitexact -ac 1)

# OBS's default: Matroska, H.264 + AAC.
ff $(video "$speech/budget.wav") -i "$speech/budget.wav" -map 0:v -map 1:a "${x264[@]}" "${common[@]}" -ar 24000 -c:a aac -b:a 32k -shortest "$out/budget.mkv"
# QuickTime: MOV, H.264 + AAC, with the creation time cameras and phones write.
ff $(video "$speech/launch.wav") -i "$speech/launch.wav" -map 0:v -map 1:a "${x264[@]}" "${common[@]}" -ar 24000 -c:a aac -b:a 32k -shortest \
  -metadata creation_time=2026-03-04T15:30:12.000000Z -f mov "$out/launch.mov"
# AVI: MPEG-4 part 2 + MP3.
ff $(video "$speech/hiring.wav") -i "$speech/hiring.wav" -map 0:v -map 1:a -c:v mpeg4 -q:v 31 -flags:v +bitexact "${common[@]}" -ar 16000 -c:a libmp3lame -b:a 24k -shortest "$out/hiring.avi"
# MPEG-TS (broadcast, some screen recorders): H.264 + MPEG audio layer II. Not named .ts: that is TypeScript here.
ff $(video "$speech/budget.wav") -i "$speech/budget.wav" -map 0:v -map 1:a "${x264[@]}" "${common[@]}" -ar 24000 -c:a mp2 -b:a 32k -shortest -f mpegts "$out/budget.mpegts"
# Windows Media Audio (ASF container), audio only.
ff -i "$speech/launch.wav" "${common[@]}" -ar 16000 -c:a wmav2 -b:a 24k -f asf "$out/launch.wma"
# A video track and no audio at all: must be refused.
ff $(video "$speech/hiring.wav") "${x264[@]}" -map_metadata -1 -fflags +bitexact -f mp4 "$out/silent-video.mp4"

ls -l "$out" >&2
