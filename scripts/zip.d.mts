export function zip(files: [string, string | Buffer][]): Buffer;
