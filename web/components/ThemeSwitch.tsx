"use client";
// System / Light / Dark: the page follows the system's setting until the person picks one.
import type { Strings } from "@/lib/i18n";
import { THEME_CHOICES, type ThemeChoice } from "@/lib/theme";

export function ThemeSwitch({ choice, onChoose, t }: { choice: ThemeChoice; onChoose: (next: ThemeChoice) => void; t: Strings }) {
  return (
    <div className="segmented" role="group" aria-label={t.theme} data-testid="theme-switch">
      {THEME_CHOICES.map((option) => (
        <button key={option} type="button" aria-pressed={choice === option} className={choice === option ? "active" : ""}
          onClick={() => onChoose(option)} data-theme-choice={option}>
          {t.themes[option]}
        </button>
      ))}
    </div>
  );
}
