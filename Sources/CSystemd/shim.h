#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
// sd_notify(3) and sd_watchdog_enabled(3) from libsystemd (Debian: libsystemd-dev), and sd-bus(3) for the
// desktop's notification server (the freedesktop Notifications interface): sd-bus's message calls are variadic,
// which Swift cannot call, so the few calls TagRouter makes are written out here.
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#define TR_NOTIFICATIONS_NAME "org.freedesktop.Notifications"
#define TR_NOTIFICATIONS_PATH "/org/freedesktop/Notifications"

/// Whether the notification server (on `bus`) supports actions: 1 yes, 0 no, a negative errno when there is no
/// server or the call fails.
static inline int tr_notifications_have_actions(sd_bus *bus) {
    // A server the bus starts on demand answers within seconds; a bus that never answers is no server.
    sd_bus_set_method_call_timeout(bus, 5000000);
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(bus, TR_NOTIFICATIONS_NAME, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                               "GetCapabilities", &error, &reply, "");
    sd_bus_error_free(&error);
    if (r < 0) return r;
    r = sd_bus_message_enter_container(reply, 'a', "s");
    int has = 0;
    const char *capability = NULL;
    while (r >= 0 && (r = sd_bus_message_read(reply, "s", &capability)) > 0) {
        if (strcmp(capability, "actions") == 0) has = 1;
    }
    sd_bus_message_unref(reply);
    return r < 0 ? r : has;
}

/// What waiting for a notification's answer records.
struct tr_notification_wait {
    uint32_t id;
    int done;
    int invoked;
    char action[64];
};

static inline int tr_on_action_invoked(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    struct tr_notification_wait *wait = userdata;
    uint32_t id = 0;
    const char *key = NULL;
    if (sd_bus_message_read(message, "us", &id, &key) >= 0 && id == wait->id && !wait->done) {
        wait->done = 1;
        wait->invoked = 1;
        strncpy(wait->action, key, sizeof(wait->action) - 1);
        wait->action[sizeof(wait->action) - 1] = 0;
    }
    return 0;
}

static inline int tr_on_notification_closed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    struct tr_notification_wait *wait = userdata;
    uint32_t id = 0, reason = 0;
    if (sd_bus_message_read(message, "uu", &id, &reason) >= 0 && id == wait->id && !wait->done) wait->done = 1;
    return 0;
}

static inline uint64_t tr_now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/// Shows a notification with the actions "default" and "open" (labelled "Open") and "dismiss" ("Dismiss"), and
/// waits up to `timeout_usec` for the user's answer. Returns 1 and the action's key in `action` when an action
/// was invoked, 0 when the notification was closed (dismissed, expired) or the wait ran out (the notification is
/// then closed), a negative errno when there is no server or a call fails.
static inline int tr_notification_ask(sd_bus *bus, const char *app, const char *summary, const char *body,
                                      int32_t expire_ms, uint64_t timeout_usec, char *action, size_t capacity) {
    struct tr_notification_wait wait = {0};
    sd_bus_slot *invoked = NULL, *closed = NULL;
    int r = sd_bus_match_signal(bus, &invoked, NULL, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME, "ActionInvoked",
                                tr_on_action_invoked, &wait);
    if (r < 0) return r;
    r = sd_bus_match_signal(bus, &closed, NULL, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME, "NotificationClosed",
                            tr_on_notification_closed, &wait);
    if (r < 0) {
        sd_bus_slot_unref(invoked);
        return r;
    }
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    r = sd_bus_call_method(bus, TR_NOTIFICATIONS_NAME, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME, "Notify",
                           &error, &reply, "susssasa{sv}i", app, (uint32_t)0, "dialog-question", summary, body,
                           (unsigned)6, "default", "Open", "open", "Open", "dismiss", "Dismiss", (unsigned)0,
                           expire_ms);
    sd_bus_error_free(&error);
    if (r >= 0) {
        r = sd_bus_message_read(reply, "u", &wait.id);
        sd_bus_message_unref(reply);
    }
    uint64_t deadline = tr_now_usec() + timeout_usec;
    while (r >= 0 && !wait.done) {
        r = sd_bus_process(bus, NULL);
        if (r < 0 || r > 0) continue;
        uint64_t now = tr_now_usec();
        if (now >= deadline) {
            sd_bus_call_method(bus, TR_NOTIFICATIONS_NAME, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                               "CloseNotification", NULL, NULL, "u", wait.id);
            break;
        }
        r = sd_bus_wait(bus, deadline - now);
    }
    sd_bus_slot_unref(invoked);
    sd_bus_slot_unref(closed);
    if (r < 0) return r;
    if (wait.invoked && capacity > 0) {
        strncpy(action, wait.action, capacity - 1);
        action[capacity - 1] = 0;
    }
    return wait.invoked ? 1 : 0;
}
#endif
