/*
 * text_sign.h - the DKIM signatures of a message's delivered text
 * (text_sign.c), made once per text.
 */
#ifndef MJQ_TEXT_SIGN_H
#define MJQ_TEXT_SIGN_H

struct listfn_env;
struct listfn_msg;

/* text_sign - put the DKIM-Signature fields on top of m's text; -1:
 * defer m (no usable key), with the reason logged and in its state file */
int text_sign(struct listfn_env *env, struct listfn_msg *m);

#endif
