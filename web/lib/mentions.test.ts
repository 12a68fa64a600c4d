import { describe, expect, it } from "vitest";
import {
  bracketLabels,
  filterCorpora,
  insertMention,
  mentionQueryAt,
  mentionToken,
  normalizeMentions,
  parseMentions,
  removeMention,
  resolveMentions,
  type CorpusOption,
} from "./mentions";

const corpora: CorpusOption[] = [
  { id: "11111111-1111-4111-8111-111111111111", name: "team_notes", label: "Team Notes" },
  { id: "22222222-2222-4222-8222-222222222222", name: "project_docs", label: "Project Docs" },
  { id: "33333333-3333-4333-8333-333333333333", name: "papers", label: "Research Papers" },
  { id: "44444444-4444-4444-8444-444444444444", name: "团队笔记", label: "团队笔记" },
];

describe("parseMentions", () => {
  it("finds plain, quoted, bracketed and CJK mentions in order, once each", () => {
    const text = 'Compare @team_notes with @"Project Docs" and @[Research Papers], again @TEAM_NOTES; 请看@团队笔记。';
    expect(parseMentions(text)).toEqual(["team_notes", "Project Docs", "Research Papers", "团队笔记"]);
  });

  it("ignores e-mail addresses and a lone @", () => {
    expect(parseMentions("mail kenji@kestrel.example about @ nothing")).toEqual([]);
  });

  it("stops a plain mention at punctuation", () => {
    expect(parseMentions("ask @papers, then @project-docs.")).toEqual(["papers", "project-docs"]);
  });
});

describe("resolveMentions", () => {
  it("maps names and labels to ids (not names)", () => {
    const result = resolveMentions("What links @project_docs and @[Research Papers]?", corpora);
    expect(result.corpusIds).toEqual([corpora[1].id, corpora[2].id]);
    expect(result.unknown).toEqual([]);
  });

  it("matches loosely with spaces, underscores and hyphens ignored", () => {
    expect(resolveMentions("@ProjectDocs @team-notes", corpora).corpusIds).toEqual([corpora[1].id, corpora[0].id]);
  });

  it("reports unknown and ambiguous mentions instead of guessing", () => {
    const twins: CorpusOption[] = [
      { id: "a", name: "ops_log", label: "Ops A" },
      { id: "b", name: "opslog", label: "Ops B" },
    ];
    expect(resolveMentions("@opslog", twins).corpusIds).toEqual(["b"]); // exact name wins
    expect(resolveMentions("@ops-log", twins)).toEqual({ corpora: [], corpusIds: [], unknown: ["ops-log"] });
    expect(resolveMentions("@finance_ledger", corpora).unknown).toEqual(["finance_ledger"]);
  });

  it("gives no ids for a message without mentions", () => {
    expect(resolveMentions("hello there", corpora)).toEqual({ corpora: [], corpusIds: [], unknown: [] });
  });
});

describe("editing", () => {
  it("detects the mention being typed at the caret", () => {
    expect(mentionQueryAt("ask @pro", 8)).toEqual({ start: 4, query: "pro" });
    expect(mentionQueryAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionQueryAt("mail a@b", 8)).toBeNull();
    expect(mentionQueryAt("ask @pro now", 12)).toBeNull();
  });

  it("inserts the picked corpus as a mention and moves the caret after it", () => {
    expect(insertMention("ask @pro", 4, 8, corpora[1])).toEqual({ text: "ask @project_docs ", caret: 18 });
    expect(mentionToken({ id: "x", name: "two words", label: "Two" })).toBe("@[two words]");
  });

  it("removes every mention of a corpus, by name or label", () => {
    expect(removeMention('see @team_notes and @"Team Notes" or @papers', corpora[0])).toBe("see and or @papers");
  });

  it("filters the popover list by name or label", () => {
    expect(filterCorpora(corpora, "pap").map((c) => c.name)).toEqual(["papers"]);
    expect(filterCorpora(corpora, "docs").map((c) => c.name)).toEqual(["project_docs"]);
    expect(filterCorpora(corpora, "")).toHaveLength(4);
  });
});

describe("labels of several words", () => {
  it("resolve like the name: @Team Notes is @team_notes, the longest label first", () => {
    const withArchive = [...corpora, { id: "55555555-5555-4555-8555-555555555555", name: "archive", label: "Team Notes Archive" }];
    expect(resolveMentions("When is the retro? @Team Notes", corpora).corpusIds).toEqual([corpora[0].id]);
    expect(resolveMentions("@team  notes and @Research Papers!", corpora).corpusIds).toEqual([corpora[0].id, corpora[2].id]);
    expect(resolveMentions("@Team Notes Archive", withArchive).corpusIds).toEqual([withArchive[4].id]);
    expect(resolveMentions("@Team Notesy", corpora).unknown).toEqual(["Team"]);
  });

  it("are sent as the corpus's own mention", () => {
    expect(normalizeMentions("save this to @Team Notes: retro on Friday", corpora)).toBe("save this to @team_notes: retro on Friday");
    expect(normalizeMentions("mail a@Team Notes", corpora)).toBe("mail a@Team Notes");
    expect(bracketLabels("@Research Papers?", corpora)).toBe("@[Research Papers]?");
  });
});
