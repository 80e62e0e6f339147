"""The annotation page driven by headless Chromium through Selenium (selenium==4.38.0, Debian's
chromium and chromium-driver), as a person would use it: keyboard only.

Pairwise view: log in, label five pairs with the keys 1-5, reload (the five persist and the page
resumes at the sixth), restart the server (same), reveal a machine verdict, export, and compare
pairwise.jsonl with what was pressed. Graded and claims views: label two tasks each and check
the exported graded.csv / claims.jsonl. Review view: accept, reject with a reason and edit three
generated questions, and check accepted.jsonl. Screenshots at desktop and phone widths go to
--screenshots when given.

Usage: annotate_page.py --ragjudge BIN --repo ROOT --work DIR [--screenshots DIR]
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

RUNS = ["examples/runs/oracle.jsonl", "examples/runs/partial.jsonl", "examples/runs/wrong.jsonl"]


class Server:
    """`ragjudge annotate serve` on a free loopback port."""

    def __init__(self, args, view, labels, export, extra=(), runs=None):
        runs = runs or [os.path.join(args.repo, r) for r in RUNS]
        cmd = [args.ragjudge, "annotate", "serve", *runs,
               "--view", view, "--labels", labels, "--export", export, "--addr", "127.0.0.1:0", *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if "open http://" not in line:
            raise SystemExit(f"server did not start: {line!r} {self.proc.stderr.read()}")
        self.url = line.split("open ", 1)[1].strip()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def browser(width, height, mobile=False):
    options = webdriver.ChromeOptions()
    if mobile:
        # A phone's viewport (headless windows are at least 500 px wide).
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2}})
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--lang=en-US"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, cond, what, timeout=20):
    try:
        return WebDriverWait(driver, timeout).until(lambda d: cond(d))
    except Exception as e:
        raise AssertionError(f"timed out waiting for {what}; status: "
                             f"{driver.find_element(By.ID, 'status').text!r}") from e


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def progress(driver):
    return driver.find_element(By.ID, "progress").text


def index(driver):
    return int(driver.find_element(By.ID, "task").get_attribute("data-index"))


def login(driver, url, name):
    driver.get(url)
    box = wait(driver, lambda d: d.find_element(By.ID, "annotator-input").is_displayed()
               and d.find_element(By.ID, "annotator-input"), "the annotator box")
    box.send_keys(name + Keys.ENTER)
    wait(driver, lambda d: d.find_element(By.ID, "task").get_attribute("data-index") is not None, "the first task")


def label_and_wait(driver, key, done, total):
    before = index(driver)
    press(driver, key)
    wait(driver, lambda d: progress(d) == f"{done} / {total}" and index(d) != before, f"label {done} saved")
    return before


# key -> (side, strength) as the page's keys are documented.
KEYS = {"1": ("left", 2), "2": ("left", 1), "3": ("tie", 1), "4": ("right", 1), "5": ("right", 2)}


def expected_label(driver, key):
    """The pairwise label (A/B/tie about system_a < system_b) and preference a key means."""
    left = driver.find_element(By.ID, "answer-left").get_attribute("data-system")
    right = driver.find_element(By.ID, "answer-right").get_attribute("data-system")
    side, strength = KEYS[key]
    a, b = sorted([left, right])
    if side == "tie":
        return (a, b), "tie", 0.0
    better = left if side == "left" else right
    return (a, b), ("A" if better == a else "B"), (-strength if better == a else strength)


def pairwise(args, driver):
    work = os.path.join(args.work, "pairwise")
    os.makedirs(work, exist_ok=True)
    labels, export = os.path.join(work, "labels.json"), os.path.join(work, "export")
    judge = os.path.join(work, "judge.jsonl")
    with open(judge, "w") as f:
        f.write(json.dumps({"id": "q01", "system_a": "oracle", "system_b": "partial", "label": "A",
                            "probs": {"a": 0.8, "b": 0.15, "tie": 0.05}}) + "\n")
    server = Server(args, "pairwise", labels, export, ["--judge-labels", judge])
    login(driver, server.url, "alice")
    total = int(progress(driver).split("/")[1])
    assert progress(driver) == f"0 / {total}", progress(driver)
    assert driver.find_element(By.ID, "verdict").get_attribute("class").find("hidden") >= 0, "verdict hidden at first"
    pressed = []
    for n, key in enumerate(["1", "4", "3", "2", "5"], start=1):
        systems, label, pref = expected_label(driver, key)
        label_and_wait(driver, key, n, total)
        pressed.append((systems, label, pref))
    if args.screenshots:
        driver.save_screenshot(os.path.join(args.screenshots, "annotate-pairwise-desktop.png"))

    # Reload: five labels persisted, the page resumes at the first unlabelled task.
    driver.get(server.url.rstrip("/") + "/")
    wait(driver, lambda d: progress(d) == f"5 / {total}", "progress after a reload")
    assert index(driver) == 5, index(driver)
    # Back to a labelled task: its button shows the label given.
    press(driver, Keys.ARROW_LEFT)
    wait(driver, lambda d: index(d) == 4, "the previous task")
    chosen = driver.find_elements(By.CSS_SELECTOR, "#keys button.chosen")
    assert [b.get_attribute("data-key") for b in chosen] == ["5"], [b.text for b in chosen]

    # Restart the server on the same label file: the same progress.
    server.stop()
    # (A new port is a new origin without the stored annotator id: the URL names it.)
    server = Server(args, "pairwise", labels, export, ["--judge-labels", judge])
    driver.get(server.url + "?annotator=alice")
    wait(driver, lambda d: progress(d) == f"5 / {total}", "progress after a restart")

    # The machine verdict, on request only, on the one task the judge's file covers.
    for i in range(total):
        driver.get(f"{server.url.rstrip('/')}/?annotator=alice#{i}")
        wait(driver, lambda d: index(d) == i, f"task {i}")
        if driver.find_elements(By.CSS_SELECTOR, "#keys button[data-key='v']"):
            press(driver, "v")
            wait(driver, lambda d: "Machine verdict" in d.find_element(By.ID, "verdict").text, "the verdict")
            break
    else:
        raise AssertionError("no task offered the judge's verdict")

    press(driver, "e")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("exported"), "the export")
    with open(os.path.join(export, "pairwise.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    assert len(lines) == 5, lines
    got = {(l["id"], l["system_a"], l["system_b"]): (l["label"], l["preference"]) for l in lines}
    with open(labels) as f:
        stored = json.load(f)
    assert stored["kind"] == "human-labels" and len(stored["labels"]) == 5
    # The stored labels, in the order given, are the keys pressed; the export says the same.
    for (systems, label, pref), s in zip(pressed, stored["labels"]):
        assert (s["system"], s["system_b"]) == systems, (s, systems)
        assert s["label"] == label and s["strength"] == max(abs(pref), 1), (s, label, pref)
        assert got[(s["id"], s["system"], s["system_b"])] == (label, float(pref)), (s, got)
        assert s["annotator"] == "alice" and s["seconds"] >= 0
    server.stop()
    return total


def graded(args, driver, view):
    work = os.path.join(args.work, view)
    os.makedirs(work, exist_ok=True)
    labels, export = os.path.join(work, "labels.json"), os.path.join(work, "export")
    server = Server(args, view, labels, export)
    driver.get(server.url + "?annotator=bob")
    wait(driver, lambda d: progress(d).startswith("0 /"), f"the {view} page")
    total = int(progress(driver).split("/")[1])
    if view == "graded":
        label_and_wait(driver, "5", 1, total)
        label_and_wait(driver, "2", 2, total)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "annotate-graded-desktop.png"))
    else:
        for done in (1, 2):
            claims = len(driver.find_elements(By.CSS_SELECTOR, "#claims .claim"))
            assert claims >= 1
            for c in range(claims):
                press(driver, "y" if c % 2 == 0 else "n")
            if done == 1 and args.screenshots:
                driver.save_screenshot(os.path.join(args.screenshots, "annotate-claims-desktop.png"))
            label_and_wait(driver, Keys.ENTER, done, total)
    press(driver, "e")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("exported"), "the export")
    with open(os.path.join(export, "graded.csv")) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2, rows
    if view == "graded":
        assert [float(r["label"]) for r in rows] == [5.0, 2.0], rows
    else:
        with open(os.path.join(export, "claims.jsonl")) as f:
            claims = [json.loads(line) for line in f]
        assert [c["supported"] for c in claims if c["id"] == rows[0]["id"] and c["system"] == rows[0]["system"]][:2] in ([True, False], [True]), claims
    server.stop()


def review(args, driver):
    """Three generated questions with their source chunk: accept one, reject one (reason 2),
    edit one; accepted.jsonl holds the first and the edited third."""
    work = os.path.join(args.work, "review")
    os.makedirs(os.path.join(work, "qs.testgen"), exist_ok=True)
    questions = os.path.join(work, "qs.jsonl")
    with open(questions, "w") as f:
        for i, (q, r) in enumerate([("What drives the water cycle?", "The Sun"),
                                     ("What is mentioned in the passage?", "water"),
                                     ("Where does rain form?", "clouds")], start=1):
            f.write(json.dumps({"id": f"tg{i}", "query": q, "reference": r,
                                "meta": {"query_type": "factual", "source_ids": ["c1"]}}) + "\n")
    with open(os.path.join(work, "qs.testgen", "chunks.jsonl"), "w") as f:
        f.write(json.dumps({"id": "c1", "text": "The Sun drives the water cycle; rain forms in clouds."}) + "\n")
    labels, export = os.path.join(work, "labels.json"), os.path.join(work, "export")
    server = Server(args, "review", labels, export, runs=[questions])
    driver.get(server.url + "?annotator=dora")
    wait(driver, lambda d: progress(d) == "0 / 3", "the review page")
    assert "The Sun drives" in driver.find_element(By.ID, "sources").text
    label_and_wait(driver, "a", 1, 3)
    press(driver, "r")
    wait(driver, lambda d: d.find_element(By.ID, "reasons").is_displayed(), "the reasons")
    label_and_wait(driver, "2", 2, 3)
    box = driver.find_element(By.ID, "edit-query")
    box.clear()
    box.send_keys("Where do raindrops form in the water cycle?")
    press(driver, Keys.ESCAPE)
    before = index(driver)
    press(driver, "a")
    wait(driver, lambda d: progress(d) == "3 / 3", "the edit saved")
    if args.screenshots:
        press(driver, Keys.ARROW_LEFT)
        wait(driver, lambda d: index(d) == 1, "the rejected question")
        driver.save_screenshot(os.path.join(args.screenshots, "annotate-review-desktop.png"))
    press(driver, "e")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("exported"), "the export")
    with open(os.path.join(export, "accepted.jsonl")) as f:
        kept = [json.loads(line) for line in f]
    assert [k["id"] for k in kept] == ["tg1", "tg3"], kept
    assert kept[1]["query"] == "Where do raindrops form in the water cycle?", kept[1]
    assert kept[1]["meta"]["review"]["original_query"] == "Where does rain form?", kept[1]
    with open(labels) as f:
        stored = json.load(f)["labels"]
    assert [(s["decision"], s.get("reason")) for s in stored] == [("accept", None), ("reject", "wrong_reference"), ("edit", None)], stored
    assert before == 2
    server.stop()


def phone(args):
    driver = browser(390, 844, mobile=True)
    try:
        work = os.path.join(args.work, "phone")
        os.makedirs(work, exist_ok=True)
        server = Server(args, "pairwise", os.path.join(work, "labels.json"), os.path.join(work, "export"))
        driver.get(server.url + "?annotator=carol")
        wait(driver, lambda d: progress(d).startswith("0 /"), "the phone page")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "annotate-pairwise-phone.png"))
        width, view = driver.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert view <= 390, f"not a phone's viewport: {view}px"
        wide = driver.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > arguments[0] + 1)"
            ".slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)", view)
        assert width <= view, f"the page scrolls sideways on a phone: {width}px in {view}px ({wide})"
        server.stop()
    finally:
        driver.quit()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ragjudge", required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--screenshots")
    args = p.parse_args()
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
    start = time.time()
    driver = browser(1280, 900)
    try:
        total = pairwise(args, driver)
        graded(args, driver, "graded")
        graded(args, driver, "claims")
        review(args, driver)
    finally:
        driver.quit()
    phone(args)
    print(f"ok: pairwise ({total} tasks), graded, claims and review views in {time.time() - start:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
