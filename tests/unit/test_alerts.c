/*
 * test_alerts.c — the alert state machine (src/core/session/alerts.c,
 * engines-and-extras B3): one DONE per busy -> idle, no DONE after an
 * ERROR or a quiet turn, no ERROR for an abort, one PAUSE per request id,
 * sessions independent, deleted state gone.
 */
#include "check.h"

#include "core/session/alerts.h"
#include "util/sbuf.h"

static void
one_done_per_busy_idle_transition(void)
{
	struct alerts	*a = alerts_new();

	CHECK_INT(alerts_status(a, "s", false), ALERT_NONE);	/* idle at start */
	CHECK_INT(alerts_status(a, "s", true), ALERT_NONE);
	CHECK_INT(alerts_status(a, "s", true), ALERT_NONE);	/* retry */
	CHECK_INT(alerts_status(a, "s", false), ALERT_DONE);
	CHECK_INT(alerts_status(a, "s", false), ALERT_NONE);	/* idle again */
	CHECK_INT(alerts_status(a, "s", true), ALERT_NONE);
	CHECK_INT(alerts_status(a, "s", false), ALERT_DONE);	/* next turn */
	alerts_free(a);
}

static void
an_error_turn_is_not_done(void)
{
	struct alerts	*a = alerts_new();

	alerts_status(a, "s", true);
	CHECK_INT(alerts_error(a, "s", false), ALERT_ERROR);
	CHECK_INT(alerts_error(a, "s", false), ALERT_NONE);
	CHECK_INT(alerts_status(a, "s", false), ALERT_NONE);
	alerts_status(a, "s", true);
	CHECK_INT(alerts_error(a, "s", true), ALERT_NONE);	/* user abort */
	CHECK_INT(alerts_status(a, "s", false), ALERT_DONE);
	alerts_free(a);
}

static void
a_quiet_turn_is_not_done(void)
{
	struct alerts	*a = alerts_new();

	alerts_status(a, "s", true);
	alerts_quiet(a, "s");
	CHECK_INT(alerts_status(a, "s", false), ALERT_NONE);
	alerts_status(a, "s", true);
	CHECK_INT(alerts_status(a, "s", false), ALERT_DONE);
	alerts_free(a);
}

static void
one_pause_per_request_id(void)
{
	struct alerts	*a = alerts_new();

	CHECK_INT(alerts_request(a, "s", "per_1"), ALERT_PAUSE);
	CHECK_INT(alerts_request(a, "s", "per_1"), ALERT_NONE);
	CHECK_INT(alerts_request(a, "s", "que_2"), ALERT_PAUSE);
	alerts_replied(a, "s", "per_1");
	alerts_replied(a, "s", "never_asked");
	CHECK_INT(alerts_request(a, "s", "que_2"), ALERT_NONE);
	CHECK_INT(alerts_request(a, "t", "que_2"), ALERT_PAUSE);
	alerts_free(a);
}

static void
sessions_are_independent_and_forgotten(void)
{
	struct alerts	*a = alerts_new();

	alerts_status(a, "s", true);
	alerts_status(a, "t", true);
	CHECK_INT(alerts_status(a, "t", false), ALERT_DONE);
	alerts_forget(a, "s");
	CHECK_INT(alerts_status(a, "s", false), ALERT_NONE);
	alerts_request(a, "t", "r");
	alerts_forget(a, "t");
	CHECK_INT(alerts_request(a, "t", "r"), ALERT_PAUSE);
	alerts_free(a);
}

static void
texts(void)
{
	struct sbuf	sb = SBUF_INIT;

	sbuf_init(&sb);
	alerts_text(ALERT_DONE, "Fix the build", &sb);
	CHECK_STR(sb.buf, "Fix the build is done");
	sbuf_reset(&sb);
	alerts_text(ALERT_PAUSE, "ses_abcd", &sb);
	CHECK_STR(sb.buf, "ses_abcd needs your input");
	sbuf_reset(&sb);
	alerts_text(ALERT_ERROR, "x", &sb);
	CHECK_STR(sb.buf, "x hit an error");
	sbuf_release(&sb);
}

CHECK_MAIN(
	TEST(one_done_per_busy_idle_transition),
	TEST(an_error_turn_is_not_done),
	TEST(a_quiet_turn_is_not_done),
	TEST(one_pause_per_request_id),
	TEST(sessions_are_independent_and_forgotten),
	TEST(texts)
)
