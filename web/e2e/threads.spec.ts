// Issue 45.3: the person's conversations from PostgreSQL (reopen with messages restored, rename, delete), the
// corpora each answer searched, and mentions by label.
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { ask, keepScreenshot, lastTurn, openChat, stack } from "./support";

const HELIOS = "What does Project Helios depend on for nearest-neighbour lookups?";

test("threads: listed, reopened with their messages, renamed and deleted", async ({ page }) => {
  const marker = randomUUID().slice(0, 8);
  const first = `${HELIOS} @project_docs`;
  await openChat(page, stack().servers.main);
  await ask(page, first);
  await expect(lastTurn(page).getByTestId("searched-corpora")).toHaveText("Searched: Project Docs");
  const list = page.getByTestId("thread-list");
  const current = list.locator('[data-testid="thread"]:has([aria-current="true"])');
  await expect(current).toContainText(first);
  const firstThread = list.locator(`[data-thread-id="${await current.getAttribute("data-thread-id")}"]`);
  await page.getByTestId("new-chat").click();
  await expect(page.getByTestId("turn")).toHaveCount(0);
  await ask(page, "Where is the Shanghai office located? @team_notes");
  await expect(lastTurn(page).getByTestId("searched-corpora")).toHaveText("Searched: Team Notes");
  const secondThread = list.locator(`[data-thread-id="${await current.getAttribute("data-thread-id")}"]`);
  await expect(secondThread).toContainText("Where is the Shanghai office located?");
  await expect(firstThread).toHaveCount(1);
  await keepScreenshot(page, "30-thread-list");

  // reopen the first: its messages come back from the server
  await firstThread.getByTestId("thread-open").click();
  await expect(firstThread.getByTestId("thread-open")).toHaveAttribute("aria-current", "true");
  await expect(page.getByTestId("turn")).toHaveCount(1);
  await expect(lastTurn(page).getByTestId("user-message")).toContainText(first);
  await expect(lastTurn(page).getByTestId("answer-text")).toContainText("Project Helios depends on the Aurora Vector Engine");
  await expect(lastTurn(page).getByTestId("searched-corpora")).toHaveText("Searched: Project Docs");

  // rename it; the name survives a reload
  await firstThread.getByTestId("thread-rename").click();
  await page.getByTestId("thread-title-input").fill(`Helios ${marker}`);
  await page.keyboard.press("Enter");
  await expect(firstThread.getByTestId("thread-open")).toHaveText(`Helios ${marker}`);
  await page.reload();
  await expect(page.getByTestId("page")).toHaveAttribute("data-ready", "true");
  await expect(firstThread.getByTestId("thread-open")).toHaveText(`Helios ${marker}`);
  await expect(lastTurn(page).getByTestId("user-message")).toContainText(first); // the open thread stays open

  // delete it (after the confirmation): gone, and a fresh chat replaces it
  page.once("dialog", (dialog) => dialog.accept());
  await firstThread.getByTestId("thread-delete").click();
  await expect(firstThread).toHaveCount(0);
  await expect(page.getByTestId("turn")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("page")).toHaveAttribute("data-ready", "true");
  await expect(list.getByTestId("thread").filter({ hasText: `Helios ${marker}` })).toHaveCount(0);
  await expect(secondThread).toHaveCount(1);
});

test("a mention by label (@Team Notes) resolves like @team_notes", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await page.getByTestId("composer-input").fill("Where is the Shanghai office located? @Team Notes");
  await expect(page.getByTestId("mention-chip")).toHaveText(/Team Notes/);
  let sent: Record<string, any> = {};
  const events = await ask(page, "Where is the Shanghai office located? @Team Notes", (body) => (sent = body));
  expect(sent.forwardedProps.corpus_ids).toEqual([stack().corpora.team_notes]);
  expect(sent.messages[sent.messages.length - 1].content).toBe("Where is the Shanghai office located? @team_notes");
  expect(events.filter((e) => e.type === "RUN_ERROR")).toEqual([]);
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-text")).not.toContainText("I can't find the corpus");
  await expect(turn.getByTestId("searched-corpora")).toHaveText("Searched: Team Notes");
  await keepScreenshot(page, "31-mention-by-label");
});
