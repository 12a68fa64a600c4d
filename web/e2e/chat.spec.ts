// The web app in a real Chromium against the real agent server (offline model, demo corpora): one test per
// case of issue 15, each keeping a screenshot in e2e/artifacts/.
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { ask, capturedRows, clickAndRun, keepScreenshot, lastTurn, openChat, stack, type AgentEvent } from "./support";

const HELIOS = "What does Project Helios depend on for nearest-neighbour lookups?";
const MULTI_HOP = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?";
// open scope brings Team Notes evidence into this @project_docs @papers question (same case as tests/test_web_api.py)
const OPEN_SCOPE_CASE = "Who leads Project Helios and which engine does it depend on?";

function runErrors(events: AgentEvent[]): AgentEvent[] {
  return events.filter((e) => e.type === "RUN_ERROR");
}

interface SearchResult {
  strict_scope: boolean;
  results: { corpus_label: string; evidence_type: string }[];
}

/** The structured result of the run's search_knowledge_base call. */
function searchResult(events: AgentEvent[]): SearchResult {
  const call = events.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === "search_knowledge_base");
  const result = events.find((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === call?.toolCallId);
  return JSON.parse(String(result?.content)) as SearchResult;
}

function expandedLabels(result: SearchResult): string[] {
  return result.results.filter((r) => r.evidence_type === "graph_expanded").map((r) => r.corpus_label);
}

function lastSnapshot(events: AgentEvent[]): Record<string, unknown> {
  const snapshots = events.filter((e) => e.type === "STATE_SNAPSHOT");
  return (snapshots[snapshots.length - 1]?.snapshot ?? {}) as Record<string, unknown>;
}

test("single @Corpus picked in the popover: planner answer, no bridges section", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const input = page.getByTestId("composer-input");
  await input.click();
  await page.keyboard.type(`${HELIOS} @`);
  const popover = page.getByTestId("mention-popover");
  await expect(popover).toBeVisible();
  await popover.getByRole("tab", { name: "Agents" }).click();
  await popover.getByText("PerceptionFaculty").hover();
  await expect(page.getByTestId("mention-tooltip").filter({ hasText: "Answers questions" }).first()).toBeVisible();
  await popover.getByRole("tab", { name: "Corpus" }).click();
  await page.keyboard.type("proj");
  const option = popover.locator('[data-corpus="project_docs"]');
  await option.hover();
  await expect(page.getByTestId("mention-tooltip").filter({ hasText: "Project Docs" }).first()).toContainText("search and ask questions");
  await keepScreenshot(page, "01-mention-popover");
  await option.click();
  await expect(page.getByTestId("mention-chip")).toHaveText(/Project Docs/);
  await expect(input).toHaveValue(`${HELIOS} @project_docs `);

  const started = page.waitForResponse((r) => r.url().endsWith("/api/agent"));
  await page.getByTestId("send").click();
  const request = (await started).request().postDataJSON();
  expect(request.forwardedProps.corpus_ids).toEqual([stack().corpora.project_docs]);
  await expect(page.getByTestId("page")).toHaveAttribute("data-running", "false");

  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-text")).toContainText("Project Helios depends on the Aurora Vector Engine");
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-tool", "search_knowledge_base");
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-mode", "planner");
  await expect(turn.getByTestId("reference").first()).toContainText("(from Corpus: Project Docs)");
  await expect(turn.getByTestId("bridged-evidence")).toHaveCount(0);
  await keepScreenshot(page, "02-single-corpus");
});

test("several @Corpus, factual question: corpus-labelled references", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const events = await ask(page, "Where is the Shanghai office located? @team_notes @project_docs");
  expect(runErrors(events)).toEqual([]);
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-mode", "planner");
  const references = await turn.getByTestId("reference").allTextContents();
  expect(references.length).toBeGreaterThan(0);
  for (const reference of references) {
    expect(reference).toMatch(/\(from Corpus: (Team Notes|Project Docs)\)$/);
  }
  await keepScreenshot(page, "03-several-corpora-fact");
});

test("several @Corpus, multi-hop: bridges collapsed with the path; survives a reload", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await ask(page, `${MULTI_HOP} @project_docs @papers`);
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-text")).toContainText("Aurora Vector Engine was developed by Dr. Lin Wei");
  await expect(turn.getByTestId("reference").first()).toContainText("(from Corpus: ");
  const bridged = turn.getByTestId("bridged-evidence");
  await expect(bridged).toBeVisible();
  await expect(bridged).not.toHaveAttribute("open", "");
  await expect(bridged.locator("summary")).toContainText("From cross-corpus linked-entity expansion");
  const path = bridged.getByTestId("bridge-path").filter({ hasText: "via Aurora Vector Engine" }).first();
  await expect(path).toBeHidden();
  await keepScreenshot(page, "04-multi-hop-collapsed");
  await bridged.locator("summary").click();
  await expect(path).toBeVisible();
  await expect(path).toHaveText(/Project Docs → Research Papers via Aurora Vector Engine \(\d hops?\)/);
  await expect(bridged.getByTestId("bridged-reference").filter({ hasText: "via Aurora Vector Engine" })).toContainText("(from Corpus: Research Papers)");
  await keepScreenshot(page, "05-multi-hop-expanded");

  await page.getByRole("button", { name: "中文", exact: true }).click();
  await expect(bridged.locator("summary")).toContainText("来自跨 Corpus 关联实体扩展");
  await page.getByRole("button", { name: "EN", exact: true }).click();

  await page.reload();
  await expect(page.getByTestId("page")).toHaveAttribute("data-ready", "true");
  const restored = lastTurn(page);
  await expect(restored.getByTestId("user-message")).toContainText(MULTI_HOP);
  await expect(restored.getByTestId("answer-text")).toContainText("Aurora Vector Engine was developed by Dr. Lin Wei");
  await expect(restored.getByTestId("bridged-evidence")).toBeVisible();
  // the conversation goes on in the same thread: a follow-up without mentions keeps the corpora
  const events = await ask(page, "What does Project Helios depend on?");
  const searches = events.filter((e) => e.type === "TOOL_CALL_START" && e.toolCallName === "search_knowledge_base");
  expect(searches).toHaveLength(1);
  expect(lastSnapshot(events).corpus_ids).toEqual([stack().corpora.project_docs, stack().corpora.papers]);
  await expect(page.getByTestId("turn")).toHaveCount(2);
  await keepScreenshot(page, "06-reload-keeps-conversation");
});

test("strict-scope toggle: cross-corpus expansion stays inside the mentioned corpora", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const open = searchResult(await ask(page, `${OPEN_SCOPE_CASE} @project_docs @papers`));
  expect(open.strict_scope).toBe(false);
  expect(expandedLabels(open)).toContain("Team Notes"); // readable by sofia, never mentioned
  await page.getByTestId("strict-scope").check();
  await page.getByTestId("new-chat").click();
  let strictProp: unknown;
  const events = await ask(page, `${OPEN_SCOPE_CASE} @project_docs @papers`, (body) => {
    strictProp = body.forwardedProps.strict_scope;
    return body;
  });
  expect(strictProp).toBe(true);
  expect(runErrors(events)).toEqual([]);
  const strict = searchResult(events);
  expect(strict.strict_scope).toBe(true);
  expect(expandedLabels(strict)).not.toContain("Team Notes");
  // expansion still runs, between the two mentioned corpora only
  expect(expandedLabels(strict).length).toBeGreaterThan(0);
  expect(new Set(strict.results.map((r) => r.corpus_label))).toEqual(new Set(["Project Docs", "Research Papers"]));
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toContainText("Strict scope");
  await expect(turn.getByText("(from Corpus: Team Notes)")).toHaveCount(0);
  await keepScreenshot(page, "06b-strict-scope");
});

test("several @Corpus, overview questions use the global-summary tool", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await ask(page, "What are the main themes across our projects? @team_notes @project_docs");
  let turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-tool", "search_knowledge_graph_global");
  await expect(turn.getByTestId("answer-text")).toContainText("Main themes:");
  await expect(turn.getByTestId("reference").first()).toContainText("(from Corpus: ");
  const events = await ask(page, "这些项目的总体趋势是什么？ @team_notes @project_docs");
  const tools = events.filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallName);
  expect(tools).toContain("search_knowledge_graph_global");
  expect(tools).not.toContain("search_knowledge_base");
  turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-tool", "search_knowledge_graph_global");
  await keepScreenshot(page, "07-overview-global-summary");
});

test("feature flag off: legacy answer, the page works", async ({ page }) => {
  await openChat(page, stack().servers.legacy);
  const events = await ask(page, `${MULTI_HOP} @project_docs @papers`);
  expect(runErrors(events)).toEqual([]);
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-mode", "legacy");
  await expect(turn.getByTestId("reference").first()).toContainText("(from Corpus: ");
  await expect(turn.getByTestId("bridged-evidence")).toHaveCount(0);
  await expect(page.getByTestId("composer-input")).toBeEnabled();
  await keepScreenshot(page, "08-flag-off-legacy");
});

test("planner stage failure injected at the server: legacy answer, no RUN_ERROR", async ({ page }) => {
  await openChat(page, stack().servers.fault);
  const events = await ask(page, `${HELIOS} @project_docs @papers`);
  expect(runErrors(events)).toEqual([]);
  expect(events[events.length - 1].type).toBe("RUN_FINISHED");
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-meta")).toHaveAttribute("data-mode", "fallback");
  await expect(turn.getByTestId("answer-meta")).toContainText("fault injected at the seeds stage");
  await expect(turn.getByTestId("answer-text")).toContainText("Project Helios depends on the Aurora Vector Engine");
  await expect(page.getByTestId("error")).toHaveCount(0);
  await keepScreenshot(page, "09-injected-fault-fallback");
});

test("save to one corpus with approval: a new row captured by the ingest intent, then searchable", async ({ page }) => {
  const marker = `Zephyr-${randomUUID().slice(0, 8)}`;
  await openChat(page, stack().servers.main);
  await ask(page, `save this to @team_notes: the ${marker} retro moved to Friday`);
  const card = lastTurn(page).getByTestId("approval-card");
  await expect(card).toHaveAttribute("data-state", "pending");
  await expect(card).toContainText("Team Notes (@team_notes)");
  await expect(card).toContainText(`the ${marker} retro moved to Friday`);
  expect(capturedRows(stack().corpora.team_notes, marker)).toEqual([]);
  await keepScreenshot(page, "10-approval-card");
  await clickAndRun(page, card.getByRole("button", { name: "Approve" }));
  await expect(card).toHaveAttribute("data-state", "approved");
  await expect(lastTurn(page).getByTestId("answer-text").last()).toContainText("Saved to Team Notes (@team_notes): 1 new chunk");
  const rows = capturedRows(stack().corpora.team_notes, marker);
  expect(rows.map((r) => r.content)).toEqual([`the ${marker} retro moved to Friday`]);
  expect(rows[0].metadata.captured_by).toBe("ingest_intent");
  await keepScreenshot(page, "11-approved-saved");

  await ask(page, `When did the ${marker} retro move? @team_notes`);
  await expect(lastTurn(page).getByTestId("answer-text")).toContainText(`the ${marker} retro moved to Friday`);
});

test("save rejected: nothing is saved", async ({ page }) => {
  const marker = `Quasar-${randomUUID().slice(0, 8)}`;
  await openChat(page, stack().servers.main);
  await ask(page, `save this to @team_notes: the ${marker} demo is cancelled`);
  const card = lastTurn(page).getByTestId("approval-card");
  await expect(card).toHaveAttribute("data-state", "pending");
  await clickAndRun(page, card.getByRole("button", { name: "Reject" }));
  await expect(card).toHaveAttribute("data-state", "rejected");
  await expect(lastTurn(page).getByTestId("answer-text").last()).toContainText("Okay, I did not save it.");
  expect(capturedRows(stack().corpora.team_notes, marker)).toEqual([]);
  await keepScreenshot(page, "12-rejected");
});

test("save with two corpora mentioned: the agent asks which one", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await ask(page, "save this to @team_notes @project_docs: the Atlas sync moved to Monday");
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-text")).toContainText("Which corpus should I save this to:");
  await expect(turn.getByTestId("answer-text")).toContainText("@team_notes (Team Notes) or @project_docs (Project Docs)");
  await expect(turn.getByTestId("approval-card")).toHaveCount(0);
  await keepScreenshot(page, "13-asks-which-corpus");
});

test("forged corpus ids in forwardedProps: no evidence from them, a clear message, stream intact", async ({ page }) => {
  const forged = [stack().corpora.kenji_notes, randomUUID(), "not-a-uuid"];
  await openChat(page, stack().servers.main);
  for (const [index, id] of forged.entries()) {
    await page.getByTestId("new-chat").click();
    const events = await ask(page, "When was the reindex dry run?", (body) => ({
      ...body,
      forwardedProps: { ...body.forwardedProps, corpus_ids: [id] },
    }));
    expect(runErrors(events)).toEqual([]);
    expect(events[events.length - 1].type).toBe("RUN_FINISHED");
    expect(events.filter((e) => e.type === "TOOL_CALL_RESULT" && String(e.content).includes("kenji"))).toEqual([]);
    const turn = lastTurn(page);
    await expect(turn.getByTestId("answer-text")).toContainText(`I can't find the corpus '${id}', or you don't have access to it.`);
    await expect(turn.getByTestId("reference")).toHaveCount(0);
    await expect(page.getByTestId("composer-input")).toBeEnabled();
    if (index === 0) await keepScreenshot(page, "14-forged-corpus");
  }
});

test("a greeting without mentions: plain reply, no intent hint", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const events = await ask(page, "Hello!");
  expect(events.filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallName)).toEqual([]);
  expect(lastSnapshot(events).action_intent_hint ?? null).toBeNull();
  const turn = lastTurn(page);
  await expect(turn.getByTestId("answer-text")).toContainText("Hello! I answer questions from your knowledge bases");
  await expect(turn.getByTestId("answer-meta")).toHaveCount(0);
  await keepScreenshot(page, "15-greeting");
});

test("the agent server unreachable: a readable error, the page is not stuck", async ({ page }) => {
  await openChat(page, stack().servers.main);
  await page.route("**/api/agent", (route) => route.abort("connectionrefused"));
  await page.getByTestId("composer-input").fill("Hello?");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("error")).toContainText("not reachable");
  await expect(page.getByTestId("page")).toHaveAttribute("data-running", "false");
  await page.unroute("**/api/agent");
  await ask(page, "Hello!");
  await expect(lastTurn(page).getByTestId("answer-text")).toContainText("Hello!");
  await keepScreenshot(page, "16-server-unreachable");
});
