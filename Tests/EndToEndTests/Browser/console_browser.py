#!/usr/bin/env python3
"""The web console in a real browser (docs/console.md): Playwright driving Debian's chromium, headless, against
the real router that Tests/EndToEndTests/ConsoleBrowserTests.swift started on a private pcscd.

The Swift test presents the tags. The two sides talk through files in WORK: this script writes
`request-N` (one line: what to present) and waits for `done-N`, which the test writes once the tag is on the
reader (or, for `enroll`, once the router claimed the reader and the tag was put on it). Each scenario that
passes prints `ok <scenario>`; the first that fails prints `FAIL <scenario>: <why>` and exits 1.

Usage: console_browser.py BASE_URL LOGIN_LINK WORK DOOR_READER [SCREENSHOTS_DIR]
"""

import csv
import io
import json
import os
import sys
import time

from playwright.sync_api import sync_playwright, expect

BASE, LINK, WORK, DOOR = sys.argv[1:5]
SHOTS = sys.argv[5] if len(sys.argv) > 5 else None
LIVE_BUDGET_MS = 1000
counter = 0


def ask(what, timeout=60):
    """Asks the Swift test to present a tag and waits until it has."""
    global counter
    counter += 1
    with open(os.path.join(WORK, f"request-{counter}.tmp"), "w") as f:
        f.write(what)
    os.rename(os.path.join(WORK, f"request-{counter}.tmp"), os.path.join(WORK, f"request-{counter}"))
    done = os.path.join(WORK, f"done-{counter}")
    deadline = time.monotonic() + timeout
    while not os.path.exists(done):
        if time.monotonic() > deadline:
            raise AssertionError(f"the test did not present '{what}' within {timeout} s")
        time.sleep(0.02)


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, name), full_page=False)


def live_row(page, text):
    return page.locator("#taps tbody tr", has_text=text).first


def scenario(name, body):
    try:
        body()
    except Exception as error:  # noqa: BLE001 - every failure is reported the same way
        print(f"FAIL {name}: {error}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def main():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        # Every CSP violation and every console error is collected, from the first script of every page on.
        context.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page = context.new_page()
        console_errors = []
        page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: console_errors.append(str(e)))
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))

        def sign_in():
            page.goto(LINK)
            page.click("#use-link")
            expect(page).to_have_url(BASE + "/")
            expect(page.locator("#live-status")).to_have_text("Live: connected.", timeout=5000)

        scenario("sign-in", sign_in)

        def live_tap():
            ask("shop")
            expect(live_row(page, "https://shop.example/item/42")).to_be_visible(timeout=LIVE_BUDGET_MS)
            expect(live_row(page, "https://shop.example/item/42").locator("td.outcome")).to_have_text("matched")
            link = live_row(page, "https://shop.example/item/42").locator("a")
            expect(link).to_have_attribute("href", "https://shop.example/item/42")
            shot(page, "live.png")

        scenario("tap-in-live-within-1s", live_tap)

        def refused_tap():
            ask("stranger")
            row = live_row(page, "04EEEEEEEEEE01")
            expect(row).to_be_visible(timeout=LIVE_BUDGET_MS)
            expect(row.locator("td.outcome")).to_have_text("denied unknown-tag")

        scenario("refused-tap-shows-its-reason", refused_tap)

        def enroll():
            page.goto(BASE + "/tags")
            form = page.locator("#enroll")
            form.locator("input[name=name]").fill("carol")
            form.locator("input[name=groups]").fill("staff")
            form.locator("select[name=reader]").select_option(DOOR)
            with page.expect_navigation(timeout=60000):
                # The answer comes once the tag is enrolled: the click must not wait for it.
                form.locator("button[type=submit]").click(no_wait_after=True)
                ask("enroll carol")
            expect(page.locator("p[role=status]")).to_contain_text('Enrolled "carol" (04CA11CA11CA01)')
            expect(page.locator("#tags tbody tr", has_text="carol")).to_be_visible()
            shot(page, "tags.png")

        scenario("enroll-by-tapping", enroll)

        def enrolled_opens():
            page.goto(BASE + "/")
            expect(page.locator("#live-status")).to_have_text("Live: connected.", timeout=5000)
            ask("carol opens")
            row = live_row(page, "carol (04CA11CA11CA01)")
            expect(row).to_be_visible(timeout=LIVE_BUDGET_MS)
            expect(row.locator("td.outcome")).to_have_text("matched")

        scenario("enrolled-tag-opens-the-door", enrolled_opens)

        def disable():
            page.goto(BASE + "/tags")
            row = page.locator("#tags tbody tr", has_text="carol")
            row.locator("button", has_text="Disable").click()
            expect(page.locator("p[role=status]")).to_contain_text('disabled "carol"')
            expect(page.locator("#tags tbody tr", has_text="carol").locator("td.state")).to_have_text("disabled")
            page.goto(BASE + "/")
            expect(page.locator("#live-status")).to_have_text("Live: connected.", timeout=5000)
            ask("carol refused")
            row = page.locator("#taps tbody tr", has_text="carol (04CA11CA11CA01)").filter(has_text="denied").first
            expect(row).to_be_visible(timeout=LIVE_BUDGET_MS)
            expect(row.locator("td.outcome")).to_have_text("denied disabled")

        scenario("disabled-from-the-page-is-refused-disabled", disable)

        def hostile():
            page.goto(BASE + "/")
            expect(page.locator("#live-status")).to_have_text("Live: connected.", timeout=5000)
            ask("hostile")
            row = live_row(page, "__xss")
            expect(row).to_be_visible(timeout=LIVE_BUDGET_MS)
            row.hover()
            for path in ["/", "/history", "/tags", "/readers", "/deliveries", "/rules"]:
                page.goto(BASE + path)
                if path == "/history":
                    shot(page, "history.png")
                if path == "/readers":
                    shot(page, "readers.png")
                for cell in page.locator("td").all()[:60]:
                    cell.hover()
                assert page.evaluate("window.__xss") is None, f"a script ran on {path}"
                violations = page.evaluate("window.__violations")
                assert violations == [], f"CSP violations on {path}: {violations}"
            assert page.locator("a[href^='javascript']").count() == 0
            csp_errors = [e for e in console_errors if "Content Security Policy" in e or "__xss" in e]
            assert csp_errors == [], f"console: {csp_errors}"
            assert dialogs == [], f"dialogs opened: {dialogs}"

        scenario("hostile-tag-runs-no-script", hostile)

        def export():
            page.goto(BASE + "/history")
            with page.expect_download() as download_info:
                page.click("text=CSV")
            path = download_info.value.path()
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            assert len(rows) >= 10000, f"{len(rows)} rows"
            assert rows[0]["reader"] == "seeded reader", rows[0]
            with page.expect_download() as download_info:
                page.click("text=JSON Lines")
            with open(download_info.value.path(), encoding="utf-8") as f:
                taps = [json.loads(line) for line in f]
            assert len(taps) == len(rows), f"{len(taps)} JSON lines, {len(rows)} CSV rows"

        scenario("export-of-10000-rows", export)

        def rules_and_phone():
            page.goto(BASE + "/rules?uri=https%3A%2F%2Fshop.example%2Fitem%2F42&reader=Desk&explain=1")
            expect(page.locator("#explain")).to_contain_text("shop")
            shot(page, "rules.png")
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
            phone.add_cookies(context.cookies())
            mobile = phone.new_page()
            mobile.goto(BASE + "/")
            width = mobile.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the Live page is {width} px wide on a phone"
            shot(mobile, "phone-live.png")
            phone.close()

        scenario("rules-page-and-phone", rules_and_phone)
        browser.close()


if __name__ == "__main__":
    main()
