import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { access, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';

import { MemoryFS, PGlite, type Transaction } from '@electric-sql/pglite';

import { DatabaseUnavailableError } from './database-unavailable-error.js';
import type { SqlEngine } from './sql-engine.js';

/**
 * PostgreSQL compiled to WebAssembly, in this process: in memory (`dataDir` null; gone when the
 * process ends) or in a data folder. One connection, so statements run one after another; that is
 * plenty for one server process and needs no installation at all. Runs with `shared_buffers=16MB`.
 *
 * A new database (in memory, or a data folder without `PG_VERSION`) starts as a copy of a template:
 * the data folder `initdb` makes, shut down cleanly, kept as a tar file (`templateFile`), made by the
 * first start that finds none. That skips `initdb` (most of the 3.5-4 s PGlite took to start a new
 * database) and the second PGlite it runs `initdb` in (bench/SERVER-FINDINGS.md, section 5).
 *
 * With `waitTimeoutMs`, an operation (a statement, or a whole transaction) that cannot start within
 * that time, because the one connection is still busy (a long transaction, a statement holding it),
 * is dropped without running and throws {@link DatabaseUnavailableError}: PGlite's equivalent of
 * PostgreSQL's statement timeout. Once started, an operation runs to its end (PGlite cannot cancel
 * a statement), so a timed-out request never leaves a half-known write behind.
 *
 * @example
 * const engine = await createPgliteEngine(process.env.PGLITE_DATA_DIR ?? null, { waitTimeoutMs: 5000 });
 */
export async function createPgliteEngine(
  dataDir: string | null,
  options: {
    readonly waitTimeoutMs?: number;
    /**
     * The template's tar file. By default `node_modules/.cache/ngx-token-refresh-reference-server/`
     * `pglite-<version>-initdb-<n>.tar`, next to the PGlite it belongs to (so `npm ci` drops it with
     * that PGlite); none there when `node_modules` is not writable. `null`: no template, PGlite runs
     * `initdb` for every new database.
     */
    readonly templateFile?: string | null;
  } = {},
): Promise<SqlEngine> {
  const db = await startPglite(
    dataDir,
    options.templateFile === undefined ? defaultTemplateFile() : options.templateFile,
  );
  const inTurn = createTurns(options.waitTimeoutMs ?? null);
  return {
    description: dataDir === null ? 'PGlite (in memory)' : `PGlite (data folder ${dataDir})`,
    query: (sql, params) => inTurn(() => query(db, sql, params)),
    exec: (sql) => inTurn(() => exec(db, sql)),
    transaction: (work) =>
      inTurn(() =>
        db.transaction((tx) => work({ query: (sql, params) => query(tx, sql, params), exec: (sql) => exec(tx, sql) })),
      ),
    close: () => db.close(),
  };
}

/**
 * PGlite's options. It reserves PostgreSQL's default 128 MB of shared buffers in its WebAssembly
 * memory; one connection over a small database needs far less, and 16 MB saves about 150 MB of
 * resident memory (bench/SERVER-RESULTS.md, "PGlite options"). PGlite writes them into
 * `postgresql.conf` on every start, so they are no part of the template.
 */
const PGLITE_OPTIONS = { postgresqlconf: 'shared_buffers=16MB' } as const;

/**
 * PGlite on `dataDir` (null: in memory); a new database starts from the template when there is one
 * (or one can be made), else PGlite runs `initdb` as it always did.
 */
async function startPglite(dataDir: string | null, templateFile: string | null): Promise<PGlite> {
  const isNew = dataDir === null || !(await exists(join(dataDir, 'PG_VERSION')));
  const template = isNew && templateFile !== null ? await openTemplate(templateFile, dataDir === null) : null;
  if (template === null) return PGlite.create(dataDir ?? undefined, PGLITE_OPTIONS);
  if (dataDir !== null) await extractTemplate(template, dataDir);
  try {
    return await (dataDir === null
      ? PGlite.create({ ...PGLITE_OPTIONS, fs: new TemplateMemoryFS(template) })
      : PGlite.create(dataDir, PGLITE_OPTIONS));
  } catch {
    // A template PostgreSQL does not start from (damaged on disk): forget it, take its files out of
    // the data folder (nothing else was written there yet), and start as PGlite would. The next
    // start makes a new template.
    await rm(template.file, { force: true }).catch(() => undefined);
    if (dataDir !== null) {
      for (const top of new Set(template.entries.map((entry) => entry.path.split('/')[0] as string))) {
        await rm(join(dataDir, top), { recursive: true, force: true });
      }
    }
    return PGlite.create(dataDir ?? undefined, PGLITE_OPTIONS);
  }
}

/** Bump when what the template holds changes (other `initdb` options), so older ones are not used. */
const TEMPLATE_FORMAT = 1;

/**
 * The default template file (see `templateFile`), or null when PGlite is not under a
 * `node_modules` folder. The template belongs to one PGlite (its PostgreSQL's catalog and file
 * layout): its version is in the name.
 */
function defaultTemplateFile(): string | null {
  try {
    const load = createRequire(import.meta.url);
    // The CommonJS entry resolves on every Node version; only its path is used.
    const entry = load.resolve('@electric-sql/pglite');
    const marker = `${sep}node_modules${sep}`;
    const at = entry.lastIndexOf(marker);
    if (at < 0) return null;
    const { version } = load(join(dirname(dirname(entry)), 'package.json')) as { version?: unknown };
    if (typeof version !== 'string' || !/^[\w.+-]+$/.test(version)) return null;
    const folder = join(entry.slice(0, at + marker.length), '.cache', 'ngx-token-refresh-reference-server');
    return join(folder, `pglite-${version}-initdb-${TEMPLATE_FORMAT}.tar`);
  } catch {
    return null;
  }
}

/**
 * A template: its file and entries, and its bytes when they are in memory (an in-memory database
 * takes them over; a data folder copies from the file instead, so it never holds 40 MB for nothing).
 */
interface Template {
  readonly file: string;
  readonly entries: readonly TarEntry[];
  readonly bytes: Uint8Array | null;
}

/** Templates being made in this process, by file, so concurrent first starts make one, not one each. */
const making = new Map<string, Promise<Uint8Array | null>>();

/**
 * The template in `file` (its bytes read when `inMemory`), made first if there is none yet; a
 * damaged one is made again. Null when its folder is not writable: making one on every start would
 * cost more than `initdb` alone.
 */
async function openTemplate(file: string, inMemory: boolean): Promise<Template | null> {
  try {
    if (inMemory) {
      const read = await readFile(file);
      const bytes = new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
      return { file, bytes, entries: readTar((at) => bytes.subarray(at, at + 512), bytes.length) };
    }
    // The headers only, read one after another without waiting: a thousand reads through the thread
    // pool took 150-200 ms, these take a few.
    const fd = openSync(file, 'r');
    try {
      const header = new Uint8Array(512);
      const readHeader = (at: number) => header.subarray(0, readSync(fd, header, 0, 512, at));
      return { file, bytes: null, entries: readTar(readHeader, fstatSync(fd).size) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') await rm(file, { force: true }).catch(() => undefined);
  }
  try {
    await mkdir(dirname(file), { recursive: true });
    await access(dirname(file), constants.W_OK);
  } catch {
    return null;
  }
  let made = making.get(file);
  if (made === undefined) {
    // A template that cannot be made leaves PGlite to run initdb for this database, as it would.
    made = makeTemplate(file)
      .catch(() => null)
      .finally(() => making.delete(file));
    making.set(file, made);
  }
  const tar = await made;
  if (tar === null) return null;
  // A copy: each database owns its bytes.
  const bytes = tar.slice();
  return { file, bytes, entries: readTar((at) => bytes.subarray(at, at + 512), bytes.length) };
}

/**
 * Runs `initdb` in an in-memory PGlite, shuts it down cleanly and keeps its data folder as a tar
 * file, written under another name and renamed, so no reader ever sees half of one.
 */
async function makeTemplate(file: string): Promise<Uint8Array | null> {
  const fs = new CapturingMemoryFS();
  const db = await PGlite.create({ ...PGLITE_OPTIONS, fs });
  await db.close();
  const tar = fs.captured;
  if (tar === undefined) return null;
  const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  try {
    await writeFile(partial, tar, { mode: 0o600 });
    await rename(partial, file);
  } catch {
    // Not kept: this start still uses it; the next one tries again.
    await rm(partial, { force: true }).catch(() => undefined);
  }
  return tar;
}

/** The parts of Emscripten's file system a template needs. */
interface EmscriptenFs {
  analyzePath(path: string): { exists: boolean };
  mkdirTree(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, options: { canOwn: boolean }): void;
}

/** PGlite's in-memory file system, which keeps the data folder as a tar file when PGlite closes. */
class CapturingMemoryFS extends MemoryFS {
  captured: Uint8Array | undefined;

  override async closeFs(): Promise<void> {
    try {
      // PostgreSQL has shut down (its last checkpoint written); Emscripten's files are still there.
      this.captured = new Uint8Array(await (await this.dumpTar('pgdata', 'none')).arrayBuffer());
    } finally {
      await super.closeFs();
    }
  }
}

/**
 * PGlite's in-memory file system, whose data folder starts as the template's files, which PGlite
 * finds as an existing database. `initialSyncFs` is the file system's hook to fill itself before
 * PostgreSQL starts. Each file takes over its bytes in the template's (no copy), so the database
 * costs no more memory than its files.
 */
class TemplateMemoryFS extends MemoryFS {
  #template: Template | undefined;

  constructor(template: Template) {
    super();
    this.#template = template;
  }

  override async initialSyncFs(): Promise<void> {
    await super.initialSyncFs();
    const template = this.#template;
    this.#template = undefined;
    if (template?.bytes == null || this.pg === undefined) return;
    const fs = this.pg.Module.FS as unknown as EmscriptenFs;
    const root = PGlite.paths.PGDATA;
    if (!fs.analyzePath(root).exists) fs.mkdirTree(root);
    for (const entry of template.entries) {
      const path = `${root}/${entry.path}`;
      if (entry.directory) {
        if (!fs.analyzePath(path).exists) fs.mkdirTree(path, entry.mode);
      } else {
        fs.writeFile(path, template.bytes.subarray(entry.offset, entry.offset + entry.size), { canOwn: true });
      }
    }
  }
}

/**
 * Writes the template's files into `dataDir` (made if missing, owner only as `initdb` makes it),
 * with their modes, `PG_VERSION` last: a start interrupted before it finds no database there and
 * starts over. From the template's file, a piece at a time, unless its bytes are in memory already.
 */
async function extractTemplate(template: Template, dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (const entry of template.entries) {
    if (entry.directory) await mkdir(join(dataDir, entry.path), { recursive: true, mode: entry.mode });
  }
  const source = template.bytes === null ? await open(template.file, 'r') : null;
  try {
    const copy = async (entry: TarEntry, buffer: Uint8Array) => {
      const target = await open(join(dataDir, entry.path), 'w', entry.mode);
      try {
        for (let done = 0; done < entry.size;) {
          const length = Math.min(buffer.length, entry.size - done);
          let piece: Uint8Array;
          if (source === null) {
            piece = (template.bytes as Uint8Array).subarray(entry.offset + done, entry.offset + done + length);
          } else {
            const { bytesRead } = await source.read(buffer, 0, length, entry.offset + done);
            if (bytesRead !== length) throw new Error('the template file changed while it was read');
            piece = buffer.subarray(0, length);
          }
          await target.write(piece);
          done += length;
        }
      } finally {
        await target.close();
      }
    };
    const files = template.entries.filter((entry) => !entry.directory && entry.path !== 'PG_VERSION');
    // Creating a file is the slow part on some disks, and it waits on the disk, not the CPU: a few at once.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const buffer = new Uint8Array(256 * 1024);
        for (let entry = files[next++]; entry !== undefined; entry = files[next++]) await copy(entry, buffer);
      }),
    );
    const version = template.entries.find((entry) => entry.path === 'PG_VERSION') as TarEntry;
    await copy(version, new Uint8Array(512));
  } finally {
    await source?.close();
  }
}

/** A file or folder of a tar file: `path` relative and checked; a file's bytes at `offset`. */
interface TarEntry {
  readonly path: string;
  readonly mode: number;
  readonly directory: boolean;
  readonly offset: number;
  readonly size: number;
}

/**
 * The entries of a tar file of `length` bytes holding regular files and folders (what PGlite's
 * `dumpTar` writes), read header by header (`header(at)`: the 512 bytes at `at`). Throws on
 * anything else, a wrong header checksum, a path leaving the folder, a file cut short or no
 * `PG_VERSION`, so a damaged template is never used.
 */
function readTar(header: (at: number) => Uint8Array, length: number): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  for (;;) {
    if (offset + 512 > length) throw new Error('tar: cut short');
    const block = header(offset);
    if (block.length !== 512) throw new Error('tar: cut short');
    if (block.every((byte) => byte === 0)) break;
    const text = (start: number, size: number) => {
      const field = block.subarray(start, start + size);
      const end = field.indexOf(0);
      return Buffer.from(end < 0 ? field : field.subarray(0, end)).toString('utf8');
    };
    const octal = (start: number, size: number) => {
      const digits = text(start, size).trim();
      if (!/^[0-7]+$/.test(digits)) throw new Error('tar: not a number');
      return parseInt(digits, 8);
    };
    let sum = 8 * 32;
    for (let i = 0; i < 512; i++) if (i < 148 || i >= 156) sum += block[i] as number;
    if (sum !== octal(148, 8)) throw new Error('tar: bad header checksum');
    const prefix = text(257, 6) === 'ustar' ? text(345, 155) : '';
    const name = (prefix ? `${prefix}/` : '') + text(0, 100);
    const parts = name.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.length === 0 || parts.includes('..')) throw new Error(`tar: unexpected path ${name}`);
    const size = octal(124, 12);
    const type = String.fromCharCode(block[156] as number);
    if (type !== '0' && type !== '\0' && type !== '5') throw new Error(`tar: unexpected entry type ${type}`);
    const start = offset + 512;
    if (start + size > length) throw new Error('tar: cut short');
    entries.push({ path: parts.join('/'), mode: octal(100, 8) & 0o777, directory: type === '5', offset: start, size });
    offset = start + Math.ceil(size / 512) * 512;
  }
  if (!entries.some((entry) => entry.path === 'PG_VERSION' && !entry.directory)) throw new Error('tar: no PG_VERSION');
  return entries;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * One operation at a time, in order of arrival, each waiting at most `waitTimeoutMs` for its turn
 * (`null`: for ever). A late one gives up its place in the queue and never runs.
 */
function createTurns(waitTimeoutMs: number | null): <T>(operation: () => Promise<T>) => Promise<T> {
  let last: Promise<void> = Promise.resolve();
  return async (operation) => {
    const previous = last;
    let done!: () => void;
    last = new Promise((resolve) => (done = resolve));
    if (waitTimeoutMs !== null) {
      let timer: NodeJS.Timeout | undefined;
      const started = await Promise.race([
        previous.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitTimeoutMs))),
      ]);
      clearTimeout(timer);
      if (!started) {
        // Pass the turn on when it comes, so the queue behind this one is not stuck.
        void previous.then(done);
        throw new DatabaseUnavailableError(`the database was busy for more than ${waitTimeoutMs} ms`);
      }
    } else {
      await previous;
    }
    try {
      return await operation();
    } finally {
      done();
    }
  };
}

async function query<Row extends object>(
  db: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  const result = await db.query<Row>(sql, [...params]);
  return result.rows;
}

async function exec(db: PGlite | Transaction, sql: string): Promise<void> {
  await db.exec(sql);
}
