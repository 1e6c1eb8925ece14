/**
 * The rest of Mantine's stylesheet: every component that first-screen-styles.ts (the start and login pages'
 * styles, loaded by main.tsx) leaves out, generated at build time (vite.config.ts, mantineRestStyles). Loaded
 * with every page chunk except the start and login pages' (router.tsx `page()`).
 */
import 'virtual:mantine-rest-styles.css';
