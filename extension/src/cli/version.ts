declare const __HEADROOM_VERSION__: string | undefined;

/** Injected by esbuild from package.json; 'dev' when run from source. */
export const VERSION = typeof __HEADROOM_VERSION__ === 'string' ? __HEADROOM_VERSION__ : 'dev';
