/*
 * settings_path.c - where mjq.conf is when no -C names it: SYSCONFDIR of
 * the build (the Makefile passes it; make install moves it with the init
 * script and mjq-newlist), "/etc" when none is given.  The one object
 * that knows it, so that a change of SYSCONFDIR rebuilds only this file.
 */
#include "settings.h"

#ifndef MJQ_SYSCONFDIR
#define MJQ_SYSCONFDIR "/etc"
#endif

const char settings_default_file[] = MJQ_SYSCONFDIR "/mjq/mjq.conf";
