"""Writes examples/agent/records.jsonl and examples/conversation/records.jsonl: hand-written
records of an agent (two systems answering four pricing questions with search, calculator and
currency tools; each question with its expected tools and relevant passages) and of
conversations (two systems, two conversations of three turns; the `forgetful` system loses
track of what the conversation is about after the first turn, and its last shipping answer
contradicts its first).

    python3 examples/make_agent_conversation.py
"""
import json
import os

os.chdir(os.path.dirname(os.path.abspath(__file__)))

P = {
    "pricing#1": "The Pro plan costs 10 EUR per month, billed monthly.",
    "pricing#2": "There is no discount for paying a year in advance.",
    "pricing#3": "The Team plan costs 8 EUR per user per month, with a minimum of 5 users.",
    "fx#1": "On 2026-01-05 one euro bought 1.09 US dollars.",
    "faq#2": "Plans renew automatically unless cancelled before the renewal date.",
    "faq#5": "Refunds are given within 14 days of a purchase.",
}


def ctx(ids):
    return [{"id": i, "text": P[i]} for i in ids]


def step(kind, name, inp=None, out=None, ids=None, ms=None, err=None):
    s = {"kind": kind, "name": name}
    if inp is not None:
        s["input"] = inp
    if out is not None:
        s["output"] = out
    if ids:
        s["contexts"] = ctx(ids)
    if ms is not None:
        s["latency_ms"] = ms
    if err:
        s["error"] = err
    return s


# (id, question, reference, expected tools, relevant passages)
Q = [
    ("a1", "What does the Pro plan cost per year?", "120 EUR per year: 10 EUR per month, and there is no yearly discount.",
     ["search", "calculator"], ["pricing#1", "pricing#2"]),
    ("a2", "What does a Team plan for 6 users cost per month?", "48 EUR per month: 8 EUR per user for 6 users.",
     ["search", {"name": "calculator", "input": {"expression": "8*6"}}], ["pricing#3"]),
    ("a3", "How much is the Pro plan per month in US dollars?", "About 10.90 US dollars: 10 EUR at 1.09 dollars per euro.",
     ["search", "currency"], ["pricing#1", "fx#1"]),
    ("a4", "Can I get my money back after 10 days?", "Yes: refunds are given within 14 days of a purchase.",
     ["search"], ["faq#5"]),
]

# system -> id -> (steps, answer, passages given to the answer)
AGENT = {
    "planner": {
        "a1": ([step("retrieval", "search", "Pro plan price", None, ["pricing#1", "pricing#2"], 40),
                step("tool", "calculator", "{\"expression\": \"10*12\"}", "120", None, 2),
                step("llm", "answer", "What does the Pro plan cost per year?", None, None, 900)],
               "The Pro plan costs 120 EUR per year (10 EUR per month [1]); there is no yearly discount [2].",
               ["pricing#1", "pricing#2"]),
        "a2": ([step("retrieval", "search", "Team plan price per user", None, ["pricing#3"], 35),
                step("tool", "calculator", "{\"expression\": \"8*6\"}", "48", None, 2),
                step("llm", "answer", "What does a Team plan for 6 users cost per month?", None, None, 850)],
               "A Team plan for 6 users costs 48 EUR per month (8 EUR per user [1]).", ["pricing#3"]),
        "a3": ([step("retrieval", "search", "Pro plan monthly price", None, ["pricing#1"], 38),
                step("tool", "currency", "{\"amount\": 10, \"from\": \"EUR\", \"to\": \"USD\"}", "10.90", None, 120),
                step("llm", "answer", "How much is the Pro plan per month in US dollars?", None, None, 880)],
               "About 10.90 US dollars per month: the Pro plan is 10 EUR per month [1].", ["pricing#1"]),
        "a4": ([step("retrieval", "search", "refund policy", None, ["faq#5", "faq#2"], 33),
                step("llm", "answer", "Can I get my money back after 10 days?", None, None, 700)],
               "Yes. Refunds are given within 14 days of a purchase [1].", ["faq#5", "faq#2"]),
    },
    "greedy": {
        "a1": ([step("retrieval", "search", "Pro plan", None, ["pricing#1", "faq#2"], 41),
                step("retrieval", "search", "Pro plan yearly", None, ["faq#2", "pricing#3"], 39),
                step("tool", "calculator", "{\"expression\": \"10*12\"}", "120", None, 2),
                step("tool", "calculator", "{\"expression\": \"120*0.9\"}", "108", None, 2),
                step("llm", "answer", "What does the Pro plan cost per year?", None, None, 1400)],
               "The Pro plan costs about 108 EUR per year with the yearly discount [1].",
               ["pricing#1", "faq#2", "pricing#3"]),
        "a2": ([step("tool", "calculator", "{\"expression\": \"10*6\"}", "60", None, 2),
                step("retrieval", "search", "Team plan", None, ["pricing#3"], 36),
                step("llm", "answer", "What does a Team plan for 6 users cost per month?", None, None, 1100)],
               "A Team plan for 6 users costs 60 EUR per month [1].", ["pricing#3"]),
        "a3": ([step("retrieval", "search", "Pro plan dollars", None, ["pricing#1"], 40),
                step("tool", "currency", "{\"amount\": 10, \"from\": \"EUR\", \"to\": \"USD\"}", None, None, 5000,
                     "timeout after 5 s"),
                step("tool", "currency", "{\"amount\": 10, \"from\": \"EUR\", \"to\": \"USD\"}", "10.90", None, 130),
                step("llm", "answer", "How much is the Pro plan per month in US dollars?", None, None, 950)],
               "The Pro plan is 10 EUR, about 10.90 US dollars, per month [1].", ["pricing#1"]),
        "a4": ([step("llm", "answer", "Can I get my money back after 10 days?", None, None, 600)],
               "Refunds are usually possible within 30 days.", []),
    },
}

# Conversations: id -> turns of (question, reference, passage ids).
C = {
    "w": [("How long is the warranty on the X200 laptop?", "The X200 has a two-year warranty.", ["manual#3"]),
          ("Does it cover the battery?", "No. The battery is covered for one year only.", ["manual#4"]),
          ("And if I drop it?", "Accidental damage is not covered by the warranty.", ["manual#5"])],
    "s": [("Where do you ship to?", "We ship to every country in the European Union.", ["ship#1"]),
          ("How long does it take to Spain?", "Delivery to Spain takes three to five working days.", ["ship#2"]),
          ("Is it free?", "Shipping is free for orders over 50 EUR.", ["ship#3"])],
}
D = {
    "manual#3": "The X200 laptop comes with a two-year limited warranty.",
    "manual#4": "Batteries are covered for one year from the date of purchase.",
    "manual#5": "The warranty does not cover accidental damage such as drops or spills.",
    "ship#1": "We deliver to all member states of the European Union.",
    "ship#2": "Orders to Spain arrive within three to five working days.",
    "ship#3": "Shipping is free on orders above 50 EUR; below that it costs 4.90 EUR.",
}
ANS = {
    "attentive": {"w": ["The X200 laptop has a two-year limited warranty [1].",
                        "The X200's battery is covered for one year from purchase, not two [1].",
                        "No: dropping the X200 is accidental damage, which its warranty does not cover [1]."],
                  "s": ["We ship to all member states of the European Union [1].",
                        "Orders to Spain arrive within three to five working days [1].",
                        "Shipping to Spain is free for orders above 50 EUR; below that it costs 4.90 EUR [1]."]},
    "forgetful": {"w": ["The X200 laptop has a two-year limited warranty [1].",
                        "Which product do you mean? Batteries are usually covered for some time.",
                        "Please tell me which device you dropped."],
                  "s": ["We deliver to all member states of the European Union [1].",
                        "Delivery times depend on the country you ship to.",
                        "Shipping is free, but we only deliver within Germany."]},
}


def main():
    with open("agent/records.jsonl", "w") as f:
        for system, runs in AGENT.items():
            for qid, q, ref, tools, rel in Q:
                steps, answer, ids = runs[qid]
                meta = {"expected_tools": tools, "relevant": rel,
                        "latency_ms": sum(s.get("latency_ms", 0) for s in steps)}
                rec = {"id": qid, "system": system, "query": q, "contexts": ctx(ids), "answer": answer,
                       "reference": ref, "steps": steps, "meta": meta}
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with open("conversation/records.jsonl", "w") as f:
        for system in ANS:
            for conv, turns in C.items():
                history = []
                for i, (q, ref, ids) in enumerate(turns):
                    a = ANS[system][conv][i]
                    rec = {"id": f"{conv}-{i + 1}", "system": system, "query": q,
                           "contexts": [{"id": d, "text": D[d]} for d in ids], "answer": a, "reference": ref,
                           "history": list(history), "meta": {"session_id": conv, "turn": i + 1}}
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    history += [{"role": "user", "text": q}, {"role": "assistant", "text": a}]


if __name__ == "__main__":
    main()
