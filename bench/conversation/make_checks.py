"""Writes the hand-made checks of the conversation metric: `contradiction.jsonl` (an earlier
assistant statement and a new one that contradicts it or not) and `retention.jsonl` (earlier
turns and a reply that asks again for, or goes against, what the user said, or does not). Each
record is the second turn of its own conversation; `meta.label` is 1 for a contradiction or a
forgetting reply. Written by hand for this check; nothing was tuned on them.

    python3 bench/conversation/make_checks.py
"""
import json
import os

os.chdir(os.path.dirname(os.path.abspath(__file__)))

# (earlier assistant statement, new statement, contradicts)
CONTRADICTION = [
    ("The X200 laptop has a two-year limited warranty.", "The X200's warranty lasts only one year.", 1),
    ("The X200 laptop has a two-year limited warranty.", "Batteries are covered for one year from purchase.", 0),
    ("We ship to all member states of the European Union.", "We do not ship to France.", 1),
    ("We ship to all member states of the European Union.", "Orders to Spain arrive within five working days.", 0),
    ("The Pro plan costs 10 EUR per month.", "The Pro plan costs 15 EUR per month.", 1),
    ("The Pro plan costs 10 EUR per month.", "The Pro plan is billed monthly.", 0),
    ("Refunds are given within 14 days of a purchase.", "You cannot get a refund after 7 days.", 1),
    ("Refunds are given within 14 days of a purchase.", "Refunds go back to the card you paid with.", 0),
    ("The museum opens at 9 am on weekdays.", "On weekdays the museum opens at noon.", 1),
    ("The museum opens at 9 am on weekdays.", "The museum opens at 9 am on weekdays, as I said.", 0),
    # Contradictions that need a step of world knowledge (Spain and Germany are in the EU; a
    # Sunday is a day).
    ("We deliver to all member states of the European Union.", "Shipping is free, but we only deliver within Germany.", 1),
    ("We deliver to all member states of the European Union.", "Shipping to Spain is free above 50 EUR.", 0),
    ("The shop is open every day of the week.", "The shop is closed on Sundays.", 1),
    ("The shop is open every day of the week.", "The shop opens at 9 am.", 0),
]

# (earlier turns, question, reply, forgets)
RETENTION = [
    ([("user", "How long is the warranty on the X200 laptop?"), ("assistant", "The X200 has a two-year warranty.")],
     "Does it cover the battery?", "Which product do you mean?", 1),
    ([("user", "How long is the warranty on the X200 laptop?"), ("assistant", "The X200 has a two-year warranty.")],
     "Does it cover the battery?", "The X200's battery is covered for one year.", 0),
    ([("user", "I live in Madrid and want to order a chair."), ("assistant", "We deliver to Spain.")],
     "How long will it take?", "Where do you live?", 1),
    ([("user", "I live in Madrid and want to order a chair."), ("assistant", "We deliver to Spain.")],
     "How long will it take?", "Orders to Madrid arrive in three to five working days.", 0),
    ([("user", "My name is Ana and my order number is 4471."), ("assistant", "Thanks, Ana.")],
     "When will it arrive?", "Could you give me your order number?", 1),
    ([("user", "My name is Ana and my order number is 4471."), ("assistant", "Thanks, Ana.")],
     "When will it arrive?", "Order 4471 will arrive on Friday.", 0),
    ([("user", "I am allergic to nuts."), ("assistant", "Noted.")],
     "Which cake do you recommend?", "Try our hazelnut cake, it is full of nuts.", 1),
    ([("user", "I am allergic to nuts."), ("assistant", "Noted.")],
     "Which cake do you recommend?", "Try the lemon cake; it has no nuts.", 0),
    ([("user", "I have the Pro plan."), ("assistant", "Good.")],
     "Can I add users?", "Which plan are you on?", 1),
    ([("user", "I have the Pro plan."), ("assistant", "Good.")],
     "Can I add users?", "Yes, the Pro plan lets you add users.", 0),
]


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


write("contradiction.jsonl", [
    {"id": f"c{i}", "system": "check", "query": "And?", "answer": new,
     "history": [{"role": "user", "text": "Tell me."}, {"role": "assistant", "text": old}],
     "meta": {"session_id": f"c{i}", "turn": 2, "label": y}}
    for i, (old, new, y) in enumerate(CONTRADICTION)])
write("retention.jsonl", [
    {"id": f"r{i}", "system": "check", "query": q, "answer": a,
     "history": [{"role": role, "text": t} for role, t in turns],
     "meta": {"session_id": f"r{i}", "turn": 2, "label": y}}
    for i, (turns, q, a, y) in enumerate(RETENTION)])
