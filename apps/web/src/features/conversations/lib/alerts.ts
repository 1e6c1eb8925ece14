/**
 * The inbox's alerts (issue 24): an optional sound (the user's choice, kept in this browser) and a desktop
 * notification (Web Notifications API, asked for only after a click) when a conversation newly needs a person,
 * is assigned to me or mentions me.
 */
const SOUND_KEY = 'sales-agent:notification-sound';

export const soundEnabled = () => {
  try {
    return localStorage.getItem(SOUND_KEY) === 'on';
  } catch {
    return false;
  }
};

export function setSoundEnabled(on: boolean) {
  try {
    if (on) localStorage.setItem(SOUND_KEY, 'on');
    else localStorage.removeItem(SOUND_KEY);
  } catch {
    // Private mode without storage: the choice lasts this page only.
  }
}

/** A short two-note chime, made with Web Audio (no sound file to load). */
export function playChime() {
  const AudioContextClass = typeof window !== 'undefined' ? window.AudioContext : undefined;
  if (!AudioContextClass) return;
  try {
    const audio = new AudioContextClass();
    const gain = audio.createGain();
    gain.connect(audio.destination);
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.5);
    [880, 1320].forEach((frequency, i) => {
      const tone = audio.createOscillator();
      tone.frequency.value = frequency;
      tone.connect(gain);
      tone.start(audio.currentTime + i * 0.12);
      tone.stop(audio.currentTime + 0.5);
    });
    setTimeout(() => void audio.close(), 1000);
  } catch {
    // Audio refused (no user gesture yet): the bell and the title still tell.
  }
}

export const canNotify = () => typeof Notification !== 'undefined' && Notification.permission === 'granted';

/** A sound (when chosen) and, while the tab is in the background, a desktop notification (when allowed). */
export function alertUser(body: string, options: { sound: boolean }) {
  if (options.sound) playChime();
  if (canNotify() && document.hidden) new Notification('Sales Agent', { body });
}

/**
 * The conversations that need a person now and did not at the previous look (`before`); nothing on the first
 * look (null), so opening the inbox does not ring for what was already waiting.
 */
export function newlyNeedingPerson(before: ReadonlySet<string> | null, rows: readonly { uuid: string; needsHuman: boolean }[]) {
  const now = new Set(rows.filter((r) => r.needsHuman).map((r) => r.uuid));
  const fresh = before === null ? [] : [...now].filter((uuid) => !before.has(uuid));
  return { now, fresh };
}
