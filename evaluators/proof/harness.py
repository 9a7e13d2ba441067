"""The proof harness (SPEC §11.2): measure every rule on a labelled corpus.

Scoring follows the corpus README exactly: predicted positive = the rule
judged (did not skip) and failed; a skipped positive is a false negative and a
skipped negative a true negative. Results are deterministic so committed
figures can be checked byte-for-byte (:func:`check`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.custom.definition import validate_definition
from evaluators.custom.run import RegexBudget, run_custom
from evaluators.engine import _run_builtin
from evaluators.proof.transforms import TRANSFORMS, applies, rewrite
from evaluators.request import EvaluationRequest
from evaluators.rules.base import Outcome
from evaluators.rules.registry import BY_NAME
from evaluators.stats import r4, wilson

SPAN_RULES = ("no_pii", "no_injection_patterns", "no_blocklist_words", "no_injection_compliance")
DATA_COPY = Path(__file__).resolve().parent.parent / "data" / "proof.json"


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    fp_ids: list[str] = field(default_factory=list)
    fn_ids: list[str] = field(default_factory=list)

    def add(self, cid: str, positive: bool, predicted: bool) -> None:
        if positive and predicted:
            self.tp += 1
        elif positive:
            self.fn += 1
            self.fn_ids.append(cid)
        elif predicted:
            self.fp += 1
            self.fp_ids.append(cid)
        else:
            self.tn += 1

    def row(self) -> dict[str, Any]:
        n = self.tp + self.fp + self.fn + self.tn
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        f1 = 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else 1.0
        pi = wilson(self.tp, self.tp + self.fp)
        ri = wilson(self.tp, self.tp + self.fn)
        return {
            "n": n,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "precision": r4(p),
            "precisionInterval": [r4(x) for x in pi] if pi else None,
            "recall": r4(r),
            "recallInterval": [r4(x) for x in ri] if ri else None,
            "f1": r4(f1),
            "fp_ids": sorted(self.fp_ids),
            "fn_ids": sorted(self.fn_ids),
        }


@dataclass
class ProofResults:
    corpus_version: str
    rules: list[dict[str, Any]]
    custom: list[dict[str, Any]]
    transforms: list[dict[str, Any]]
    pii_entities: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "corpusVersion": self.corpus_version,
            "rules": self.rules,
            "custom": self.custom,
            "transforms": self.transforms,
            "piiEntities": self.pii_entities,
        }


def corpus_hash(corpus_dir: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(corpus_dir.rglob("*.json")):
        h.update(p.relative_to(corpus_dir).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def _request(case: dict[str, Any], output: str | None = None) -> EvaluationRequest:
    payload: dict[str, Any] = {
        k: case[k] for k in ("output", "input", "expected", "context") if k in case
    }
    if output is not None:
        payload["output"] = output
    return EvaluationRequest.from_payload(payload)


def run_rule(rule: str, req: EvaluationRequest, config: EngineConfig) -> Outcome:
    return _run_builtin(BY_NAME[rule], EvalContext(req, config))


def _predicted(o: Outcome) -> bool:
    return not o.skipped and not o.passed


def _spans(o: Outcome) -> list[tuple[int, int]]:
    return [
        (e["start"], e["end"])
        for e in o.evidence
        if e.get("type") == "span" and e.get("source") == "output" and e["end"] > e["start"]
    ]


def run_proof(corpus_dir: Path, config: EngineConfig | None = None) -> ProofResults:
    config = config or EngineConfig()
    rules: list[dict[str, Any]] = []
    transforms: list[dict[str, Any]] = []
    entities: dict[str, list[int]] = {}
    for path in sorted(corpus_dir.glob("*.json")):
        fam = json.loads(path.read_text(encoding="utf-8"))
        rule = fam["rule"]
        tally = Tally()
        tr: dict[str, dict[str, Any]] = {
            t: {"n": 0, "caught": 0, "dropped": []} for t in TRANSFORMS
        }
        for case in fam["cases"]:
            positive = case["label"] == "positive"
            req = _request(case)
            o = run_rule(rule, req, config)
            pred = _predicted(o)
            tally.add(case["id"], positive, pred)
            if rule == "no_pii" and positive:
                named = {e.get("label") for e in o.evidence if e.get("type") == "span"} | {
                    e.get("name") for e in o.evidence if e.get("type") == "pattern"
                }
                for ent in case.get("entities", []):
                    row = entities.setdefault(ent, [0, 0])
                    row[0] += 1
                    row[1] += int(pred and ent in named)
            if positive and pred and rule in SPAN_RULES:
                spans = _spans(o)
                if not spans:
                    continue
                for t in TRANSFORMS:
                    if not any(applies(t, req.output[s:e]) for s, e in spans):
                        continue
                    o2 = run_rule(rule, _request(case, rewrite(req.output, spans, t)), config)
                    tr[t]["n"] += 1
                    if _predicted(o2):
                        tr[t]["caught"] += 1
                    else:
                        tr[t]["dropped"].append(case["id"])
        rule_row = {
            "name": rule,
            "rule": rule,
            "family": fam.get("family", path.stem),
            "labels": "def"
            if "definition" in str(fam.get("labelling", "")).lower()
            and "reading" not in str(fam.get("labelBasis", ""))
            else "reader",
            **tally.row(),
        }
        rules.append(rule_row)
        for t, v in tr.items():
            if v["n"]:
                transforms.append(
                    {
                        "rule": rule,
                        "transform": t,
                        "n": v["n"],
                        "caught": v["caught"],
                        "recall": r4(v["caught"] / v["n"]),
                        "dropped": sorted(v["dropped"]),
                    }
                )
    custom: list[dict[str, Any]] = []
    cdir = corpus_dir / "custom"
    for path in sorted(cdir.glob("*.json")) if cdir.exists() else []:
        fam = json.loads(path.read_text(encoding="utf-8"))
        defn = validate_definition(
            {"name": f"proof_{fam['type']}", "type": fam["type"], "config": fam.get("config", {})},
            origin="inline",
        )
        tally = Tally()
        for case in fam["cases"]:
            req = _request(case)
            o = run_custom(defn, EvalContext(req, config), RegexBudget())
            tally.add(case["id"], case["label"] == "positive", _predicted(o))
        custom.append({"type": fam["type"], **tally.row()})
    pii = [
        {"entity": k, "n": v[0], "caught": v[1], "recall": r4(v[1] / v[0])}
        for k, v in sorted(entities.items())
    ]
    rules.sort(key=lambda r: r["rule"])
    return ProofResults(corpus_hash(corpus_dir), rules, custom, transforms, pii)


def _markdown(res: ProofResults) -> str:
    lines = [
        f"# Proof results\n\nCorpus version `{res.corpus_version}`. Generated by "
        "`evaluators.proof.harness`; do not hand-edit.\n",
        "| rule | labels | n | tp | fp | fn | tn | precision (95% CI) | recall (95% CI) | F1 |",
        "| --- | --- | --: | --: | --: | --: | --: | --- | --- | --: |",
    ]
    for r in res.rules:
        pi = r["precisionInterval"] or [0, 1]
        ri = r["recallInterval"] or [0, 1]
        lines.append(
            f"| `{r['rule']}` | {r['labels']} | {r['n']} | {r['tp']} | {r['fp']} | {r['fn']} |"
            f" {r['tn']} | {r['precision']} [{pi[0]}, {pi[1]}] | {r['recall']} [{ri[0]}, {ri[1]}] |"
            f" {r['f1']} |"
        )
    lines += ["", "## False positives and negatives", ""]
    for r in res.rules:
        if r["fp_ids"] or r["fn_ids"]:
            lines.append(
                f"- `{r['rule']}`: FP {', '.join(r['fp_ids']) or '—'}; FN "
                f"{', '.join(r['fn_ids']) or '—'}"
            )
    lines += [
        "",
        "## Custom types",
        "",
        "| type | n | precision | recall | F1 |",
        "| --- | --: | --: | --: | --: |",
    ]
    lines += [
        f"| `{c['type']}` | {c['n']} | {c['precision']} | {c['recall']} | {c['f1']} |"
        for c in res.custom
    ]
    lines += [
        "",
        "## Disguises",
        "",
        "| rule | disguise | n | caught | recall | dropped |",
        "| --- | --- | --: | --: | --: | --- |",
    ]
    lines += [
        f"| `{t['rule']}` | {t['transform']} | {t['n']} | {t['caught']} | {t['recall']} |"
        f" {', '.join(t['dropped'])} |"
        for t in res.transforms
    ]
    lines += [
        "",
        "## no_pii recall by entity",
        "",
        "| entity | n | caught | recall |",
        "| --- | --: | --: | --: |",
    ]
    lines += [
        f"| {p['entity']} | {p['n']} | {p['caught']} | {p['recall']} |" for p in res.pii_entities
    ]
    return "\n".join(lines) + "\n"


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_results(results: ProofResults, out_dir: Path, *, publish: bool = True) -> None:
    """Write ``results.json`` + ``RESULTS.md``; with ``publish`` also refresh the
    copy the engine reads its uncertainty from (only for the project's corpus:
    measuring some other directory must not change what the engine reports)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = _dump(results.to_json())
    (out_dir / "results.json").write_text(text, encoding="utf-8")
    (out_dir / "RESULTS.md").write_text(_markdown(results), encoding="utf-8")
    if not publish:
        return
    DATA_COPY.parent.mkdir(parents=True, exist_ok=True)
    DATA_COPY.write_text(text, encoding="utf-8")
    from evaluators.proof import figures

    figures.reload()


def check(out_dir: Path, corpus_dir: Path) -> list[str]:
    """Differences between committed figures and what the code produces now."""
    fresh = run_proof(corpus_dir).to_json()
    path = out_dir / "results.json"
    if not path.exists():
        return [f"{path} is missing"]
    committed = json.loads(path.read_text(encoding="utf-8"))
    diffs: list[str] = []
    if committed.get("corpusVersion") != fresh["corpusVersion"]:
        diffs.append(
            f"corpusVersion: committed {committed.get('corpusVersion')} vs {fresh['corpusVersion']}"
        )
    for key, ident in (("rules", "rule"), ("custom", "type"), ("transforms", None)):
        old = committed.get(key, [])
        new = fresh[key]
        if ident is None:
            if old != new:
                diffs.append(f"{key}: committed figures differ from the code's output")
            continue
        om = {r[ident]: r for r in old}
        nm = {r[ident]: r for r in new}
        for name in sorted(set(om) | set(nm)):
            if om.get(name) != nm.get(name):
                diffs.append(
                    f"{key}.{name}: committed {_brief(om.get(name))} vs now {_brief(nm.get(name))}"
                )
    return diffs


def _brief(r: dict[str, Any] | None) -> str:
    if r is None:
        return "absent"
    return f"tp={r['tp']} fp={r['fp']} fn={r['fn']} tn={r['tn']} f1={r['f1']}"


def main() -> None:  # pragma: no cover - CLI convenience
    import sys

    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("proof/corpus")
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("proof")
    write_results(run_proof(corpus), out)


if __name__ == "__main__":  # pragma: no cover
    main()
