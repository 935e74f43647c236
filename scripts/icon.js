// Draws media/icon.png (128x128, the Marketplace icon): a blue rounded square with a small white
// dependency tree (a root feeding two children, one of them feeding a third), i.e. what the tree
// view shows. Plain Node (zlib) so no image tool is needed:  node scripts/icon.js [out.png]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const SIZE = 128;
const SS = 4; // supersampling per axis, for anti-aliased edges

const nodes = [
  [64, 34],
  [38, 84],
  [90, 84],
  [90, 108],
];
const edges = [
  [0, 1],
  [0, 2],
  [2, 3],
];

function segDist(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

function roundedSquare(x, y, r) {
  const cx = Math.max(r, Math.min(SIZE - r, x));
  const cy = Math.max(r, Math.min(SIZE - r, y));
  return Math.hypot(x - cx, y - cy) <= r;
}

/** RGBA of one sample point. */
function sample(x, y) {
  if (!roundedSquare(x, y, 22)) return [0, 0, 0, 0];
  const white = [255, 255, 255, 255];
  for (const [cx, cy] of nodes) if (Math.hypot(x - cx, y - cy) <= 11) return white;
  for (const [a, b] of edges) if (segDist(x, y, nodes[a], nodes[b]) <= 4) return white;
  // Vertical gradient, Flux-like blue to indigo.
  const t = y / SIZE;
  return [Math.round(50 + 20 * t), Math.round(110 - 50 * t), Math.round(230 - 40 * t), 255];
}

function pixels() {
  const rows = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0 + RGBA
    for (let x = 0; x < SIZE; x++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const [r, g, b, a] = sample(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
          acc[0] += r * a;
          acc[1] += g * a;
          acc[2] += b * a;
          acc[3] += a;
        }
      }
      const alpha = acc[3] / (SS * SS);
      const o = 1 + x * 4;
      if (acc[3] > 0) {
        row[o] = Math.round(acc[0] / acc[3]);
        row[o + 1] = Math.round(acc[1] / acc[3]);
        row[o + 2] = Math.round(acc[2] / acc[3]);
      }
      row[o + 3] = Math.round(alpha);
    }
    rows.push(row);
  }
  return Buffer.concat(rows);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', zlib.deflateSync(pixels(), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = process.argv[2] ?? path.join(__dirname, '..', 'media', 'icon.png');
fs.writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
