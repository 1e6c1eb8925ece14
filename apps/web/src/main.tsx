import './app/first-screen-styles.ts';
import { createRoot } from 'react-dom/client';
import { StrictMode } from 'react';
import { AppProviders } from './app/providers.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProviders />
  </StrictMode>,
);
