/**
 * Bytes for a binary media type: a well-formed minimal file where one is short (PNG, GIF, PDF, ZIP), else the type's
 * magic number followed by filler, deterministic per answer.
 */
import { createHash } from 'node:crypto';

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const GIF_1X1 = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';
const EMPTY_ZIP = 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==';

/** Leading bytes by type, for the types answered as magic plus filler. */
const MAGIC: Record<string, number[]> = {
  'image/jpeg': [0xff, 0xd8, 0xff, 0xe0],
  'image/jpg': [0xff, 0xd8, 0xff, 0xe0],
  'image/webp': [0x52, 0x49, 0x46, 0x46],
  'image/tiff': [0x49, 0x49, 0x2a, 0x00],
  'audio/mpeg': [0x49, 0x44, 0x33, 0x03],
  'video/mp4': [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70],
  'application/gzip': [0x1f, 0x8b, 0x08, 0x00],
};

/** Bytes after the magic number. */
const FILLER_BYTES = 256;

export function binaryBody(mediaType: string, seedText: string): Uint8Array {
  switch (mediaType) {
    case 'image/png':
      return Buffer.from(PNG_1X1, 'base64');
    case 'image/gif':
      return Buffer.from(GIF_1X1, 'base64');
    case 'application/zip':
      return Buffer.from(EMPTY_ZIP, 'base64');
    case 'application/pdf':
      return Buffer.from(minimalPdf(), 'latin1');
  }
  const magic = MAGIC[mediaType] ?? [];
  const filler: number[] = [];
  let block = createHash('sha256').update(seedText).digest();
  while (filler.length < FILLER_BYTES) {
    filler.push(...block);
    block = createHash('sha256').update(block).digest();
  }
  return Uint8Array.from([...magic, ...filler.slice(0, FILLER_BYTES)]);
}

/** A one-page PDF with a correct cross-reference table. */
function minimalPdf(): string {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return text;
}
