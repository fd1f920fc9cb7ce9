#!/usr/bin/python3
"""webdrive.py - one visit of headless Chromium (chromium-driver, through
python3-selenium) to a page, as a person makes it: open URL, type into
fields, choose radio buttons, press a button or follow a link, and keep
what the browser showed: OUT/NAME.png (a screenshot) and OUT/NAME.html
(the DOM) of the page opened and, after each press or follow, of the
page it led to: OUT/NAME-after.png and .html, then NAME-after2, ...

usage: webdrive.py OUT NAME URL
           [fill:ID=VALUE | check:ID | press:ID | follow:CSS]...
(follow: the first element the CSS selector finds, clicked)
"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def keep(driver, out, name):
    driver.save_screenshot(os.path.join(out, name + ".png"))
    with open(os.path.join(out, name + ".html"), "w", encoding="utf-8") as f:
        f.write(driver.page_source)


def main():
    out, name, url = sys.argv[1:4]
    opts = webdriver.ChromeOptions()
    for a in ("--headless", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--no-first-run",
              "--disable-background-networking", "--window-size=420,900",
              "--user-data-dir=" + os.path.join(out, "chrome-" + name)):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                              options=opts)
    driver.set_page_load_timeout(120)
    after = 0
    try:
        driver.get(url)
        keep(driver, out, name)
        for step in sys.argv[4:]:
            verb, _, arg = step.partition(":")
            if verb == "fill":
                ident, _, value = arg.partition("=")
                driver.find_element(By.ID, ident).send_keys(value)
            elif verb == "check":
                driver.find_element(By.ID, arg).click()
            elif verb in ("press", "follow"):
                old = driver.find_element(By.TAG_NAME, "html")
                driver.find_element(By.ID if verb == "press" else
                                    By.CSS_SELECTOR, arg).click()
                WebDriverWait(driver, 120).until(
                    lambda d: old.id != d.find_element(By.TAG_NAME, "html").id)
                after += 1
                keep(driver, out, name + "-after" +
                     (str(after) if after > 1 else ""))
            else:
                sys.exit("webdrive.py: unknown step " + step)
    finally:
        driver.quit()


main()
