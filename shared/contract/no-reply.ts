/**
 * The answer a turn ends with when the model sent nothing to show after every retry (src-main/agent/empty-reply.ts;
 * our wording). A client or the desk shows it; a cron run takes it as the empty reply it stands for (upstream's cron
 * likewise drops its own explanation and delivers nothing).
 */
export const NO_REPLY_TEXT =
  'No reply: the model sent back nothing to show, even after being asked again. Send the message again, or try ' +
  'another model or provider.'
