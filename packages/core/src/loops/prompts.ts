/**
 * What the RunLoop says to the model when a cross-step detector fires (docs/loops.md). Plain data so a
 * runtime can replace the wording without touching the detectors.
 */

/** Text loop, 1st trigger: a reminder to change course. */
export const TEXT_LOOP_MILD_PROMPT = `<system-reminder>
Your last few replies were the same. You are repeating yourself instead of making progress.
Stop and change course now:
- re-read the user's request and check you are solving the right problem;
- use a different tool, different arguments, or a different approach;
- if something blocks you, name the blocker and ask the user for help.
</system-reminder>`

/** Text loop, 2nd trigger: abandon the plan; the next repeat ends the session. */
export const TEXT_LOOP_STRONG_PROMPT = `<system-reminder>
You are still repeating the same reply after a reminder. Your current plan has failed.
- Abandon that plan entirely; do not continue it in any form.
- Say plainly what you were trying to do and why it did not work.
- Ask the user for help, offering two or three different ways forward.
If you repeat the same output once more, the session will be terminated.
</system-reminder>`

/** Text loop, 3rd trigger: the error the RunLoop publishes before it ends the loop. */
export const TEXT_LOOP_TERMINATE_MESSAGE = "Text loop detected"

/** Repeated action: an ephemeral note on the request being built (never stored). */
export const REPEATED_ACTION_NOTE = `<system-reminder>
You are repeating the same action with the same arguments, and it has not moved you forward.
Change approach: inspect the result you already have, try a different tool or different arguments,
or explain what is blocking you.
</system-reminder>`

/** The user message appended when a crop leaves the request ending on an assistant message. */
export const CONTINUE_TEXT = "Continue."
