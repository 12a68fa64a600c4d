"use client";
// A tooltip that hover and focus open, and that a tap can pin open (touch has no hover): ``pinned``.
import * as Tooltip from "@radix-ui/react-tooltip";
import { useState, type ReactNode } from "react";

interface Props {
  children: ReactNode;
  content: ReactNode;
  pinned: boolean;
  side?: "top" | "right";
  testId?: string;
}

export function Hint({ children, content, pinned, side = "right", testId }: Props) {
  const [hovered, setHovered] = useState(false);
  return (
    <Tooltip.Root delayDuration={150} open={hovered || pinned} onOpenChange={setHovered}>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" side={side} sideOffset={8} data-testid={testId}>
          {content}
          <Tooltip.Arrow className="tooltip-arrow" />
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}

/** An "i" button whose tooltip a tap or click opens and closes. */
export function InfoTip({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [pinned, setPinned] = useState(false);
  return (
    <Hint content={text} pinned={pinned} side="top" testId={`${testId}-tooltip`}>
      <button type="button" className="icon-button info" aria-label={label} aria-expanded={pinned} data-testid={testId}
        onClick={() => setPinned((open) => !open)} onBlur={() => setPinned(false)}>ⓘ</button>
    </Hint>
  );
}
