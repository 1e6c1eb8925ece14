import { afterAll, beforeAll } from 'vitest';
import { buildPlaybook, type PlaybookSeed } from './agent-factories.ts';
import { buildTestApp, type TestApp } from './build-test-app.ts';
import { buildUser, type TestUser } from './factories.ts';

/**
 * Test helpers that register their own setup and teardown (in the spirit of outline's `getTestServer()` and
 * fastify-demo's `build(t)`): a test file, or a `describe` block, writes
 *
 *     const llm = useFake(() => startGhlFake());
 *     const t = useTestApp({ env: () => llm.env() });
 *     const admin = useUser(t, 'ADMIN');
 *
 * and gets a started fake, the real app on a fresh database and a signed-in user, all closed again after the
 * block. Each call returns at once a handle that forwards to the real object once its `beforeAll` has run, so
 * the names are usable in tests and later hooks but not at collection time. Vitest runs `afterAll` hooks in
 * reverse order, so the app closes before the fakes it talks to.
 */

type Env = Record<string, string>;

export interface UseTestAppOptions {
  /** Extra environment for the config loader; a function when it depends on a fake started before. */
  env?: Env | (() => Env);
}

/** A stand-in for an object that exists only after a `beforeAll`: reads, writes and calls go to it. */
function lateBound<T extends object>(what: string): { handle: T; bind(target: T): void } {
  let target: T | undefined;
  const current = (): T => {
    if (!target) throw new Error(`${what} is used before its beforeAll ran (use it inside a test or hook)`);
    return target;
  };
  const handle = new Proxy({} as T, {
    get(_, key) {
      const object = current();
      const value = Reflect.get(object, key, object) as unknown;
      // Methods run on the real object: fakes keep private state (#fields) a proxy receiver cannot reach.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
    set: (_, key, value) => Reflect.set(current(), key, value),
    has: (_, key) => Reflect.has(current(), key),
    // Spreading or comparing the handle ({ ...admin }, toEqual) sees the real object's own fields.
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(current(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return { handle, bind: (object) => void (target = object) };
}

/** The real app on a fresh database for the enclosing file or `describe`, built before and closed after it. */
export function useTestApp(options: UseTestAppOptions = {}): TestApp {
  const app = lateBound<TestApp>('the test app');
  let built: TestApp | undefined;
  beforeAll(async () => {
    built = await buildTestApp(typeof options.env === 'function' ? options.env() : options.env);
    app.bind(built);
  });
  afterAll(() => built?.close());
  return app.handle;
}

/**
 * A loopback fake (or any server with `close()`), started before the block and closed after it. Either a
 * function that starts one, so the fake's own options stay in the test (`useFake(() => startTwilioFake(...))`),
 * or a fake built at once whose `start()` opens it (`useFake(new OpenAiFake())`), returned as it is.
 */
export function useFake<T extends { close(): unknown; start(): unknown }>(fake: T): T;
export function useFake<T extends { close(): unknown }>(start: () => Promise<T> | T): T;
export function useFake<T extends { close(): unknown; start?(): unknown }>(fakeOrStart: T | (() => Promise<T> | T)): T {
  if (typeof fakeOrStart !== 'function') {
    beforeAll(async () => {
      await fakeOrStart.start?.();
    });
    afterAll(async () => {
      await fakeOrStart.close();
    });
    return fakeOrStart;
  }
  const fake = lateBound<T>('the fake');
  let started: T | undefined;
  beforeAll(async () => {
    started = await fakeOrStart();
    fake.bind(started);
  });
  afterAll(async () => {
    await started?.close();
  });
  return fake.handle;
}

/** A conversation type with a playbook (agent-factories' buildPlaybook) on `t`'s app, created once before the block's tests. */
export function usePlaybook(t: TestApp, seed?: PlaybookSeed): { id: number } {
  const playbook = lateBound<{ id: number }>('the test playbook');
  beforeAll(async () => {
    playbook.bind(await buildPlaybook(t.ctx, seed));
  });
  return playbook.handle;
}

/** A user with a session on `t`'s app, created once before the block's tests (after the app is built). */
export function useUser(t: TestApp, role: 'ADMIN' | 'NORMAL' = 'NORMAL'): TestUser {
  const user = lateBound<TestUser>(`the ${role} test user`);
  beforeAll(async () => {
    user.bind(await buildUser(t.ctx, { role }));
  });
  return user.handle;
}
