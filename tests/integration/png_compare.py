#!/usr/bin/env python3
"""Compares two screenshots (PNG) within a tolerance that survives font
differences, for test_report_html.sh.

  png_compare.py REFERENCE.png SHOT.png [FACTOR [TOL [MAXFRAC]]]

Both images must have the same size. Each is turned into grey levels and
shrunk by FACTOR (default 4) in both directions, each new pixel the mean
of its FACTORxFACTOR block: a glyph drawn a little differently (another
hinting, another fallback font of the same size) changes a block's mean by
little, while a missing chart, a moved table or another colour changes
whole blocks. A block differs when its grey levels differ by more than TOL
(default 24 of 255); the images match when at most MAXFRAC (default 0.03)
of the blocks differ. Prints the fraction; exit 0 match, 1 no match, 2
unreadable input. Only the standard library: PNG decoded here (8-bit
grey, grey+alpha, RGB or RGBA, not interlaced: what chromium and bindlab
write; every chunk's CRC checked). test_matrix.sh imports decode_pixels
to read the colours of a heatmap's cells."""
import struct
import sys
import zlib


def decode_pixels(path):
    """(width, height, channels, rows, text): rows are bytearrays of
    width x channels samples, unfiltered; text the tEXt chunks as a dict."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG")
    pos, idat, hdr, text = 8, b"", None, {}
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if crc != zlib.crc32(kind + body):
            raise ValueError("%s: bad CRC in a %s chunk" % (path, kind))
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            text[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    channels = {0: 1, 4: 2, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError("%s: PNG kind not handled (depth %d, colour type %d,"
                         " interlace %d)" % (path, depth, ctype, interlace))
    raw = zlib.decompress(idat)
    stride = w * channels
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        prev = line
        rows.append(line)
    return w, h, channels, rows, text


def decode(path):
    w, h, channels, rows, _ = decode_pixels(path)
    grey = []
    stride = w * channels
    for line in rows:
        if channels >= 3:
            grey.append([(line[i] * 299 + line[i + 1] * 587 + line[i + 2] * 114)
                         // 1000 for i in range(0, stride, channels)])
        else:
            grey.append(list(line[0:stride:channels]))
    return w, h, grey


def shrink(w, h, grey, k):
    out = []
    for by in range(h // k):
        rows = grey[by * k:(by + 1) * k]
        out.append([sum(r[bx * k + j] for r in rows for j in range(k)) / (k * k)
                    for bx in range(w // k)])
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    tol = float(sys.argv[4]) if len(sys.argv) > 4 else 24
    maxfrac = float(sys.argv[5]) if len(sys.argv) > 5 else 0.03
    try:
        wa, ha, a = decode(sys.argv[1])
        wb, hb, b = decode(sys.argv[2])
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print("png_compare: %s" % e, file=sys.stderr)
        return 2
    if (wa, ha) != (wb, hb):
        print("png_compare: sizes differ: %dx%d and %dx%d" % (wa, ha, wb, hb))
        return 1
    sa, sb = shrink(wa, ha, a, k), shrink(wb, hb, b, k)
    n = len(sa) * len(sa[0])
    bad = sum(1 for ra, rb in zip(sa, sb) for x, y in zip(ra, rb)
              if abs(x - y) > tol)
    frac = bad / n
    print("png_compare: %d of %d blocks (%.2f%%) differ by more than %g"
          % (bad, n, 100 * frac, tol))
    return 0 if frac <= maxfrac else 1


if __name__ == "__main__":
    sys.exit(main())
