// Issue 45.1 in a real Chromium against the real server: [n] and references open the cited passage, permission-
// checked for the /agent person, with the cited sentence marked, its corpus, document and bridge path; clicks land
// in PostgreSQL and `negentropy stats` reports the click-through.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { ask, currentThread, databaseRows, keepScreenshot, lastTurn, openChat, stack } from "./support";

const MULTI_HOP = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?";

test("[n] and references open the cited passage; bridged evidence shows its path; clicks are recorded", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await ask(page, `${MULTI_HOP} @project_docs @papers`);
  const turn = lastTurn(page);
  const view = page.getByTestId("source-view");

  // the first [n] of the prose: its sentence is marked in the passage
  const mark = turn.getByTestId("answer-text").getByTestId("open-source").first();
  await mark.click();
  await expect(view).toBeVisible();
  await expect(view.getByRole("heading")).not.toBeEmpty();
  await expect(view.getByTestId("source-corpus")).toHaveText(/^(Project Docs \(@project_docs\)|Research Papers \(@papers\))$/);
  await expect(view.getByTestId("source-document")).not.toBeEmpty();
  await expect(view.getByTestId("cited-sentence")).toBeVisible();
  const cited = await view.getByTestId("cited-sentence").textContent();
  expect((await turn.getByTestId("answer-text").textContent()) ?? "").toContain(cited?.split(" ").slice(0, 3).join(" "));
  await keepScreenshot(page, "20-source-view");
  await page.keyboard.press("Escape");
  await expect(view).toBeHidden();
  await expect(mark).toBeFocused(); // the dialog hands focus back

  // a reference opens too
  await turn.getByTestId("reference").first().getByTestId("open-source").click();
  await expect(view.getByTestId("source-corpus")).toContainText("(@");
  await view.getByTestId("source-close").click();

  // bridged evidence: the path under the passage
  await turn.getByTestId("bridged-evidence").locator("summary").click();
  await turn.getByTestId("bridged-reference").filter({ hasText: "via Aurora Vector Engine" }).first().getByTestId("open-source").click();
  await expect(view.getByTestId("source-bridge")).toHaveText(/Project Docs → Research Papers via Aurora Vector Engine \(\d hops?\)/);
  await expect(view.getByTestId("source-corpus")).toHaveText("Research Papers (@papers)");
  await keepScreenshot(page, "21-source-view-bridged");
  await view.getByTestId("source-close").click();

  // a second answer in the thread whose sources nobody opens (the first one cites only what was opened above)
  await ask(page, "What does Project Helios depend on? @project_docs");
  const thread = await currentThread(page);
  const rows = () => databaseRows<{ evidence_type: string; opened: boolean }>("views", thread);
  expect(databaseRows("views", randomUUID())).toEqual([]);
  expect(rows().some((r) => r.evidence_type === "graph_expanded" && r.opened)).toBe(true);
  expect(rows().some((r) => r.evidence_type === "primary" && r.opened)).toBe(true);
  await expect.poll(() => rows().some((r) => !r.opened)).toBe(true); // shown but never opened

  // negentropy stats reads them back with the target
  const out = execFileSync(process.env.PYTHON ?? "python", ["-m", "cli.main", "stats", "--json"], {
    cwd: path.resolve(__dirname, "..", ".."),
    env: { ...process.env, NE_DATABASE_URL: stack().dsn, PYTHONPATH: path.resolve(__dirname, "..", ".."), HF_HUB_OFFLINE: "1" },
    encoding: "utf-8",
  });
  const section = (JSON.parse(out) as { title: string; rows: { metric: string; value: string }[] }[])
    .find((s) => s.title.includes("click-through"));
  const metrics = Object.fromEntries((section?.rows ?? []).map((r) => [r.metric, r.value]));
  expect(metrics["bridged evidence opened"]).toMatch(/^\d+\.\d% \(\d+\/\d+\)$/);
  expect(metrics["cross_corpus_clickthrough (target >= 0.6x same-corpus)"]).toMatch(/^\d+\.\d\dx (ok|MISSED)$/);
  expect(metrics["rollout path planner: same-corpus evidence opened"]).toMatch(/^\d+\.\d% \(\d+\/\d+\)$/);
});

test("a forged or inaccessible chunk id gets 404 and an audit row, not the passage", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const [{ id: forbidden }] = databaseRows<{ id: number }>("chunk", stack().corpora.kenji_notes);
  const body = (chunkId: unknown) => ({ chunkId, threadId: randomUUID(), turnId: "forged", evidenceType: "primary", quote: "" });
  const refused = await page.request.post(`${stack().servers.main}/api/sources/open`, { data: body(forbidden) });
  expect(refused.status()).toBe(404);
  expect(await refused.json()).toEqual({ error: `There is no passage ${forbidden} you may read.` });
  const unknown = await page.request.post(`${stack().servers.main}/api/sources/open`, { data: body(2_000_000_000) });
  expect(unknown.status()).toBe(404);
  expect((await page.request.post(`${stack().servers.main}/api/sources/open`, { data: body("1 OR 1=1") })).status()).toBe(422);
  const audit = databaseRows<{ tool: string; decision: string; reason: string }>("audit", "sofia");
  expect(audit).toEqual(expect.arrayContaining([
    { tool: "source_view", decision: "denied", reason: "forbidden_chunk" },
    { tool: "source_view", decision: "denied", reason: "unknown_chunk" },
  ]));
});
