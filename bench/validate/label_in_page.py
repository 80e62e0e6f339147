"""Labels pairs in the annotation page as a person would (keyboard only, headless Chromium,
selenium==4.38.0), giving each pair the label a reference file holds: the scripted annotator of
bench/validate/example_trust.sh. Pairs without a reference label are skipped.

Usage: label_in_page.py --url URL --annotator NAME --reference pairwise_labels.jsonl [--limit N]
"""

import argparse
import json

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--annotator", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--limit", type=int, default=10**9)
    args = p.parse_args()
    reference = {}
    for line in open(args.reference):
        r = json.loads(line)
        reference[(r["id"], r["system_a"], r["system_b"])] = r["label"]
        swapped = {"A": "B", "B": "A"}.get(r["label"], r["label"])
        reference[(r["id"], r["system_b"], r["system_a"])] = swapped
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 20)
    done = 0
    try:
        driver.get(f"{args.url.rstrip('/')}/?annotator={args.annotator}")
        wait.until(lambda d: d.find_element(By.ID, "task").get_attribute("data-index") is not None)
        total = int(driver.find_element(By.ID, "progress").text.split("/")[1])
        for i in range(total):
            if done >= args.limit:
                break
            driver.get(f"{args.url.rstrip('/')}/?annotator={args.annotator}#{i}")
            wait.until(lambda d: d.find_element(By.ID, "task").get_attribute("data-index") == str(i))
            query_id = json.loads(driver.execute_script(
                "return JSON.stringify(state.task.key)"))["id"]
            left = driver.find_element(By.ID, "answer-left").get_attribute("data-system")
            right = driver.find_element(By.ID, "answer-right").get_attribute("data-system")
            label = reference.get((query_id, left, right))
            if label is None:
                continue
            key = {"A": "2", "B": "4"}.get(label, "3")
            before = driver.find_element(By.ID, "progress").text
            ActionChains(driver).send_keys(key).perform()
            wait.until(lambda d: d.find_element(By.ID, "progress").text != before)
            done += 1
    finally:
        driver.quit()
    print(f"{args.annotator}: {done} pairs labelled in the page")


if __name__ == "__main__":
    main()
