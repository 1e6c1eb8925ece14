import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    // Spec §7.9: script chunks load from a static/js path on the same origin.
    assetsDir: 'static/js',
    chunkSizeWarningLimit: 1500,
  },
  server: { port: 5173, proxy: { '/api': 'http://localhost:3000' } },
  test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'] },
});
