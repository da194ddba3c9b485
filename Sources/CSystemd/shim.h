#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
// sd_notify(3) and sd_watchdog_enabled(3) from libsystemd (Debian: libsystemd-dev), and sd-bus(3) for the
// desktop's notification server (the freedesktop Notifications interface): sd-bus's message calls are variadic,
// which Swift cannot call, so the few calls TagRouter makes are written out here; so is prctl(2), variadic too.
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

/// prctl(PR_SET_DUMPABLE, 0): other processes of the same user (a rule's command) can no longer read this
/// process's /proc/PID/environ or memory, nor ptrace it. prctl(2) is variadic, which Swift cannot call, and
/// <sys/prctl.h> is not in Swift's Glibc module. Returns 0, or -errno.
static inline int tr_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : -errno;
}

#define TR_NOTIFICATIONS_NAME "org.freedesktop.Notifications"
#define TR_NOTIFICATIONS_PATH "/org/freedesktop/Notifications"

/// Asks the notification server (on `bus`) what it supports: 1 when it lists "actions" (buttons), 0 when not, a
/// negative errno when there is no server or the call fails. `body_markup` (may be NULL) is set to whether it lists
/// "body-markup". `server` (may be NULL; `capacity` bytes) receives the unique bus name of the connection that
/// answered: the bus daemon sets a message's sender and delivers a reply only from the connection the call went
/// to, so this is the server itself, the one connection whose signals may answer a question.
static inline int tr_notifications_capabilities(sd_bus *bus, int *body_markup, char *server, size_t capacity) {
    // A server the bus starts on demand answers within seconds; a bus that never answers is no server.
    sd_bus_set_method_call_timeout(bus, 5000000);
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(bus, TR_NOTIFICATIONS_NAME, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                               "GetCapabilities", &error, &reply, "");
    sd_bus_error_free(&error);
    if (r < 0) return r;
    if (server != NULL) {
        const char *sender = sd_bus_message_get_sender(reply);
        if (sender == NULL || strlen(sender) >= capacity) {
            sd_bus_message_unref(reply);
            return sender == NULL ? -EPROTO : -ENAMETOOLONG;
        }
        strcpy(server, sender);
    }
    if (body_markup != NULL) *body_markup = 0;
    r = sd_bus_message_enter_container(reply, 'a', "s");
    int has = 0;
    const char *capability = NULL;
    while (r >= 0 && (r = sd_bus_message_read(reply, "s", &capability)) > 0) {
        if (strcmp(capability, "actions") == 0) has = 1;
        if (body_markup != NULL && strcmp(capability, "body-markup") == 0) *body_markup = 1;
    }
    sd_bus_message_unref(reply);
    return r < 0 ? r : has;
}

/// Whether the notification server (on `bus`) supports actions: 1 yes, 0 no, a negative errno when there is no
/// server or the call fails.
static inline int tr_notifications_have_actions(sd_bus *bus) {
    return tr_notifications_capabilities(bus, NULL, NULL, 0);
}

/// A descriptor that withdraws a question (tr_notification_ask polls it with the bus): an eventfd, or -1 (with
/// errno) when none can be made.
static inline int tr_withdrawal_open(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// Makes `fd` (from tr_withdrawal_open) readable: the question it belongs to is withdrawn.
static inline void tr_withdrawal_signal(int fd) {
    uint64_t one = 1;
    // A full counter (2^64 - 2 signals) is still readable; nothing else can fail on a valid eventfd.
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

/// Whether `fd` (from tr_withdrawal_open, or -1) was signalled, without waiting.
static inline int tr_withdrawal_signalled(int fd) {
    if (fd < 0) return 0;
    struct pollfd poll_fd = {.fd = fd, .events = POLLIN};
    return poll(&poll_fd, 1, 0) > 0 && (poll_fd.revents & POLLIN) != 0;
}

/// What waiting for a notification's answer records.
struct tr_notification_wait {
    /// The unique bus name of the notification server: signals from any other connection are ignored.
    const char *server;
    uint32_t id;
    int done;
    int invoked;
    char action[64];
};

/// Whether `message` comes from the notification server of `wait` (sd-bus already matches on the sender; this is
/// the same check made where the answer is read).
static inline int tr_from_server(sd_bus_message *message, const struct tr_notification_wait *wait) {
    const char *sender = sd_bus_message_get_sender(message);
    return sender != NULL && strcmp(sender, wait->server) == 0;
}

static inline int tr_on_action_invoked(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    struct tr_notification_wait *wait = userdata;
    uint32_t id = 0;
    const char *key = NULL;
    if (tr_from_server(message, wait) && sd_bus_message_read(message, "us", &id, &key) >= 0 && id == wait->id
        && !wait->done) {
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
    if (tr_from_server(message, wait) && sd_bus_message_read(message, "uu", &id, &reason) >= 0 && id == wait->id
        && !wait->done)
        wait->done = 1;
    return 0;
}

static inline uint64_t tr_now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/// Closes notification `id` on `server` without waiting for the reply (a stuck server cannot hold up a withdrawal).
static inline void tr_notification_close(sd_bus *bus, const char *server, uint32_t id) {
    sd_bus_message *message = NULL;
    if (sd_bus_message_new_method_call(bus, &message, server, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                                       "CloseNotification") >= 0
        && sd_bus_message_append(message, "u", id) >= 0 && sd_bus_message_set_expect_reply(message, 0) >= 0)
        (void)sd_bus_send(bus, message, NULL);
    sd_bus_message_unref(message);
    (void)sd_bus_flush(bus);
}

/// Shows a notification through `server` (the unique name tr_notifications_capabilities gave) with the actions
/// "default" and "open" (labelled "Open") and "dismiss" ("Dismiss"), and waits up to `timeout_usec` for the
/// user's answer, counting only signals sent by `server`. The wait polls the bus and `withdrawal` (from
/// tr_withdrawal_open; -1 for none) together: once `withdrawal` is signalled the notification is closed (or never
/// shown) and the wait ends at once.
/// Returns 1 and the action's key in `action` when an action was invoked; 0 when the notification was closed
/// (dismissed, expired) or the wait ran out (the notification is then closed); 2 when it was withdrawn; a negative
/// errno when a call fails.
static inline int tr_notification_ask(sd_bus *bus, const char *server, const char *app, const char *summary,
                                      const char *body, int32_t expire_ms, uint64_t timeout_usec, int withdrawal,
                                      char *action, size_t capacity) {
    if (tr_withdrawal_signalled(withdrawal)) return 2;
    struct tr_notification_wait wait = {.server = server};
    sd_bus_slot *invoked = NULL, *closed = NULL;
    int r = sd_bus_match_signal(bus, &invoked, server, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                                "ActionInvoked", tr_on_action_invoked, &wait);
    if (r < 0) return r;
    r = sd_bus_match_signal(bus, &closed, server, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME,
                            "NotificationClosed", tr_on_notification_closed, &wait);
    if (r < 0) {
        sd_bus_slot_unref(invoked);
        return r;
    }
    int withdrawn = 0;
    if (tr_withdrawal_signalled(withdrawal)) {
        withdrawn = 1;
    } else {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        r = sd_bus_call_method(bus, server, TR_NOTIFICATIONS_PATH, TR_NOTIFICATIONS_NAME, "Notify", &error, &reply,
                               "susssasa{sv}i", app, (uint32_t)0, "dialog-question", summary, body, (unsigned)6,
                               "default", "Open", "open", "Open", "dismiss", "Dismiss", (unsigned)0, expire_ms);
        sd_bus_error_free(&error);
        if (r >= 0) {
            r = sd_bus_message_read(reply, "u", &wait.id);
            sd_bus_message_unref(reply);
        }
    }
    uint64_t deadline = tr_now_usec() + timeout_usec;
    while (r >= 0 && !wait.done && !withdrawn) {
        r = sd_bus_process(bus, NULL);
        if (r != 0) continue;  // a message was handled (look for more), or the bus failed
        uint64_t now = tr_now_usec();
        if (now >= deadline) {
            tr_notification_close(bus, server, wait.id);
            break;
        }
        // Until the deadline, or sooner when sd-bus has a timeout of its own (a pending call).
        uint64_t until = deadline, bus_timeout = UINT64_MAX;
        if (sd_bus_get_timeout(bus, &bus_timeout) >= 0 && bus_timeout < until) until = bus_timeout;
        int events = sd_bus_get_events(bus), fd = sd_bus_get_fd(bus);
        if (events < 0 || fd < 0) {
            r = events < 0 ? events : fd;
            break;
        }
        struct pollfd fds[2] = {{.fd = fd, .events = (short)events}, {.fd = withdrawal, .events = POLLIN}};
        uint64_t milliseconds = until > now ? (until - now + 999) / 1000 : 0;
        int ready = poll(fds, withdrawal >= 0 ? 2 : 1, milliseconds > INT32_MAX ? INT32_MAX : (int)milliseconds);
        if (ready < 0 && errno != EINTR) {
            r = -errno;
        } else if (ready > 0 && withdrawal >= 0 && (fds[1].revents & POLLIN) != 0) {
            withdrawn = 1;
            tr_notification_close(bus, server, wait.id);
        }
    }
    sd_bus_slot_unref(invoked);
    sd_bus_slot_unref(closed);
    if (r < 0) return r;
    if (withdrawn) return 2;
    if (wait.invoked && capacity > 0) {
        strncpy(action, wait.action, capacity - 1);
        action[capacity - 1] = 0;
    }
    return wait.invoked ? 1 : 0;
}
#endif
