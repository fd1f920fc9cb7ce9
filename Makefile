# mjq - Makefile: build, test, install, demo.
#
# Each part is a directory; its sources are found by wildcard, so adding a
# file to a part needs no edit here.
#   common/*.c        -> common/libcommon.a   (no mail knowledge)
#   spool-layout/*.c  -> spool-layout/libspool.a
#   sched/*.c         -> sched/libsched.a     (the pure scheduler)
#   smtp/*.c          -> smtp/libsmtp.a       (SMTP client, TLS, DNS)
#   lists/*.c         -> lists/liblists.a     (what a list is)
#   cluster/*.c       -> cluster/libcluster.a (limits shared by several
#                        hosts through Redis, with hiredis)
#   deliver/*.c       -> deliver/libdeliver.a (the delivery threads and
#                        the transports: batches in, results out)
#   queuectl/*.c      -> queuectl/libqueuectl.a (the operator's commands:
#                        mj_queuerun -l -c -H -h -D)
#   listfn/*.c        -> listfn/liblistfn.a   (the list functions: posts,
#                        owner mail, requests, moderation, bounces, DSNs)
#   enqueue/*.c       -> enqueue/mj_enqueue
#   members/*.c       -> members/mjq-members (a list owner's bulk
#                        membership: add, remove, list, set-mode)
#   queueserv/*.c     -> queueserv/mj_queueserv
#   stsfetch/*.c      -> stsfetch/mj_stsfetch (an MTA-STS policy over
#                        HTTPS with libcurl, for the runners: the one
#                        program that links libcurl)
#   queuerun/*.c      -> queuerun/libqueuerun.a (all but mj_queuerun.c,
#                        the main), queuerun/mj_queuerun
#   schedsim/*.c      -> schedsim/mj_schedsim
#   archive/*.c       -> archive/libarchive.a (all but mj_archive.c: the
#                        web archive, on SQLite and libxml2),
#                        archive/mj_archive
#   archsearch/*.c    -> archsearch/mj_archsearch (the archive's search,
#                        a CGI program)
# Each library has one public header named after its folder (sched.h,
# smtp.h, lists.h); a part's own files find its private headers beside
# them, so only the libraries' folders are on the include path.
#   t/tools/*.c       -> t/tools/<name>      (test helpers, one file each,
#                        linked with every library above)
#   t/tools/preload_*.c -> t/tools/preload_<name>.so (LD_PRELOAD shims for
#                        the tests, one file each, without the sanitizers)
#   t/tools/testsmtpd/*.c -> t/tools/mj_testsmtpd (the tests' SMTP server,
#                        split by concern; libc and OpenSSL only)

# Where make install puts things (GNU names; DESTDIR stages a tree for a
# package).  SYSCONFDIR holds mjq/mjq.conf, the path compiled into the
# programs as their default (common/settings_path.c), and init.d: /etc
# unless moved, as init looks nowhere else.  PREFIX moves the programs,
# the CGI program, the man pages and the systemd unit.
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
CGIDIR     ?= $(PREFIX)/lib/cgi-bin
SYSCONFDIR ?= /etc
INITDIR    ?= $(SYSCONFDIR)/init.d
UNITDIR    ?= $(PREFIX)/lib/systemd/system
DESTDIR    ?=
# the installed scripts and init files name the installed paths
INSTALL_PATHS = sed 's|/usr/local/sbin/|$(SBINDIR)/|g; s|/etc/mjq/|$(SYSCONFDIR)/mjq/|g'

CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN      = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Werror
CPPFLAGS += -D_GNU_SOURCE -isystem /usr/include/bsd -DLIBBSD_OVERLAY \
            -Icommon -Ispool-layout \
            -iquote sched -iquote smtp -iquote lists -iquote cluster \
            -iquote deliver \
            -iquote queuectl -iquote listfn -iquote archive
LDLIBS   += -linih -lbsd -lm -pthread -lcrypto
# liblists finds organizational domains with libpsl and reads HTML posts
# with libxml2 (html_text.c, for the archive and convert_html): only
# what links liblists needs them.
LISTS_LIBS = -lpsl $(shell pkg-config --libs libxml-2.0)
lists/html_text.o: CPPFLAGS += $(shell pkg-config --cflags libxml-2.0)
# mj_stsfetch fetches MTA-STS policies with libcurl (OpenSSL flavour):
# only it links libcurl, so that a runner does without its libraries.
CURL_LIBS = -lcurl
# libcluster talks to Redis with hiredis (and OpenSSL for tls = yes):
# only what links it needs it.
CLUSTER_LIBS = -lhiredis -lssl -lcrypto
# mj_archive keeps its index in SQLite (FTS5): only it links it, so the
# runner stays small.  It reads HTML posts as text with liblists'
# html_text.c (libxml2).
ARCHIVE_CFLAGS = $(shell pkg-config --cflags libxml-2.0)
ARCHIVE_LIBS = -lsqlite3 $(shell pkg-config --libs libxml-2.0)

# make SAN=1: AddressSanitizer and UndefinedBehaviorSanitizer everywhere.
# mj_enqueue runs once per incoming message: linked statically it skips
# the dynamic loader and stays well under 2 MB of RSS (t/bench/enqueue.sh).
ENQ_STATIC ?= -static
ENQ_LIBS    = -linih -lbsd -lmd

ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
ENQ_STATIC =
endif
# make SAN=thread: ThreadSanitizer (the runner's delivery and list threads
# against its main thread); a race ends the program with status 66.
ifeq ($(SAN),thread)
CFLAGS   += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=thread
ENQ_STATIC =
export TSAN_OPTIONS ?= exitcode=66 halt_on_error=1
endif

# make MJQ_TEST_FAULTS=1: a test build whose runner crashes on a message
# that asks for it (queuerun/test_fault.c); never for installed programs.
ifeq ($(MJQ_TEST_FAULTS),1)
CPPFLAGS += -DMJQ_TEST_FAULTS
endif

ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS)

COMMON_SRC := $(wildcard common/*.c)
SPOOL_SRC  := $(wildcard spool-layout/*.c)
SCHED_SRC  := $(wildcard sched/*.c)
SMTP_SRC   := $(wildcard smtp/*.c)
LISTS_SRC  := $(wildcard lists/*.c)
CLUSTER_SRC := $(wildcard cluster/*.c)
DELIVER_SRC := $(wildcard deliver/*.c)
QCTL_SRC   := $(wildcard queuectl/*.c)
LISTFN_SRC := $(wildcard listfn/*.c)
ENQ_SRC    := $(wildcard enqueue/*.c)
UNSUB_SRC  := $(wildcard unsubscribe/*.c)
MEM_SRC    := $(wildcard members/*.c)
WEB_SRC    := $(wildcard web/*.c)
QS_SRC     := $(wildcard queueserv/*.c)
STSF_SRC   := $(wildcard stsfetch/*.c)
QR_MAIN    := $(wildcard queuerun/mj_queuerun.c)
QR_SRC     := $(filter-out $(QR_MAIN),$(wildcard queuerun/*.c))
SIM_SRC    := $(wildcard schedsim/*.c)
ARC_MAIN   := $(wildcard archive/mj_archive.c)
ARC_SRC    := $(filter-out $(ARC_MAIN),$(wildcard archive/*.c))
ASRCH_SRC  := $(wildcard archsearch/*.c)
PRELOAD_SRC := $(wildcard t/tools/preload_*.c)
TOOL_SRC   := $(filter-out $(PRELOAD_SRC),$(wildcard t/tools/*.c))
SMTPD_SRC  := $(wildcard t/tools/testsmtpd/*.c)

LIBCOMMON := common/libcommon.a
LIBSPOOL  := spool-layout/libspool.a
LIBSCHED  := sched/libsched.a
LIBSMTP   := smtp/libsmtp.a
LIBLISTS  := lists/liblists.a
LIBCLUSTER := cluster/libcluster.a
LIBDELIVER := deliver/libdeliver.a
LIBQCTL   := queuectl/libqueuectl.a
LIBLISTFN := listfn/liblistfn.a
LIBQR     := queuerun/libqueuerun.a
LIBARC    := archive/libarchive.a

PROGS := enqueue/mj_enqueue unsubscribe/mj_unsubscribe web/mj_listweb
ifneq ($(MEM_SRC),)
PROGS += members/mjq-members
endif
ifneq ($(QS_SRC),)
PROGS += queueserv/mj_queueserv
endif
ifneq ($(QR_MAIN),)
PROGS += queuerun/mj_queuerun
endif
ifneq ($(STSF_SRC),)
PROGS += stsfetch/mj_stsfetch
endif
ifneq ($(SIM_SRC),)
PROGS += schedsim/mj_schedsim
endif
ifneq ($(ARC_MAIN),)
PROGS += archive/mj_archive
endif
ifneq ($(ASRCH_SRC),)
PROGS += archsearch/mj_archsearch
endif
TOOLS := $(TOOL_SRC:.c=) t/tools/mj_testsmtpd $(PRELOAD_SRC:.c=.so)

MAN8 := $(wildcard */*.8)
MAN5 := $(wildcard */*.5)

.PHONY: all test check demo install uninstall setup deb clean deps fuzz fuzz-replay bench \
	deps-graph fault-runner
all: $(PROGS) $(TOOLS) t/tools/mj_enqueue_dyn

%.o: %.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# A library is archived anew from its sources' objects: ar adds to an
# archive, so the object of a file moved to another part would stay and
# win the link.

$(LIBCOMMON): $(COMMON_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBSPOOL): $(SPOOL_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBSCHED): $(SCHED_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBSMTP): $(SMTP_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBLISTS): $(LISTS_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBCLUSTER): $(CLUSTER_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBDELIVER): $(DELIVER_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBQCTL): $(QCTL_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBLISTFN): $(LISTFN_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBQR): $(QR_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
$(LIBARC): $(ARC_SRC:.c=.o)
	@rm -f $@
	$(AR) rcs $@ $^
archive/%.o: CPPFLAGS += $(ARCHIVE_CFLAGS)
archsearch/%.o: CPPFLAGS += $(ARCHIVE_CFLAGS)

# mj_enqueue checks the whole of mjq.conf: of liblists it links the list
# sections' table (lists_settings.o) and the spelling of a list's path
# (list_path.o, to see that a list exists) and nothing else, of libcluster the
# [cluster] table (cluster_settings.o, no hiredis) and nothing else; so
# do mj_unsubscribe and mj_queueserv of libcluster.
LISTS_TABLE := lists/lists_settings.o lists/list_path.o
CLUSTER_TABLE := cluster/cluster_settings.o
enqueue/mj_enqueue: $(ENQ_SRC:.c=.o) $(LISTS_TABLE) $(CLUSTER_TABLE) \
    $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) $(ENQ_STATIC) -o $@ $^ $(ENQ_LIBS)
unsubscribe/mj_unsubscribe: $(UNSUB_SRC:.c=.o) \
    $(CLUSTER_TABLE) $(LIBLISTS) $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
members/mjq-members: $(MEM_SRC:.c=.o) $(CLUSTER_TABLE) $(LIBLISTS) \
    $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS)
# mj_listweb shows held posts with the archive's rendering
# (archive_body.o, archive_html.o).
web/mj_listweb: $(WEB_SRC:.c=.o) archive/archive_body.o \
    archive/archive_html.o $(CLUSTER_TABLE) \
    $(LIBLISTS) $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS)
queueserv/mj_queueserv: $(QS_SRC:.c=.o) $(CLUSTER_TABLE) $(LIBLISTS) \
    $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
queuerun/mj_queuerun: $(QR_MAIN:.c=.o) $(LIBQR) $(LIBQCTL) $(LIBLISTFN) $(LIBDELIVER) $(LIBSCHED) \
    $(LIBSMTP) $(LIBLISTS) $(LIBCLUSTER) $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS) $(CLUSTER_LIBS) -lssl -lcrypto -lresolv
stsfetch/mj_stsfetch: $(STSF_SRC:.c=.o) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(CURL_LIBS) -lbsd
# make fault-runner FAULT_DIR=dir: dir/mj_queuerun, the runner with
# test_fault.c and listfn_clock.c built with MJQ_TEST_FAULTS (their
# objects, linked before the libraries, replace the libraries' plain
# ones: crashes on request, a clock shifted by MJQ_TEST_CLOCK_OFFSET),
# and beside it a link to mj_stsfetch, which a runner looks for there;
# for the tests only (t/690, t/730).
fault-runner: $(QR_MAIN:.c=.o) $(LIBQR) $(LIBQCTL) $(LIBLISTFN) $(LIBDELIVER) $(LIBSCHED) $(LIBSMTP) \
    $(LIBLISTS) $(LIBCLUSTER) $(LIBSPOOL) $(LIBCOMMON) stsfetch/mj_stsfetch
	@test -n "$(FAULT_DIR)" || { echo "fault-runner: FAULT_DIR=dir" >&2; exit 2; }
	ln -sf $(CURDIR)/stsfetch/mj_stsfetch $(FAULT_DIR)/mj_stsfetch
	$(CC) $(CPPFLAGS) -DMJQ_TEST_FAULTS $(ALL_CFLAGS) -c \
	    -o $(FAULT_DIR)/test_fault.o queuerun/test_fault.c
	$(CC) $(CPPFLAGS) -DMJQ_TEST_FAULTS $(ALL_CFLAGS) -c \
	    -o $(FAULT_DIR)/listfn_clock.o listfn/listfn_clock.c
	$(CC) $(LDFLAGS) -o $(FAULT_DIR)/mj_queuerun $(QR_MAIN:.c=.o) \
	    $(FAULT_DIR)/test_fault.o $(FAULT_DIR)/listfn_clock.o $(filter %.a,$^) $(LDLIBS) $(LISTS_LIBS) $(CLUSTER_LIBS) -lssl -lcrypto -lresolv
archive/mj_archive: $(ARC_MAIN:.c=.o) $(LIBARC) $(CLUSTER_TABLE) $(LIBLISTS) \
    $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS) $(ARCHIVE_LIBS)
archsearch/mj_archsearch: $(ASRCH_SRC:.c=.o) $(LIBARC) $(CLUSTER_TABLE) \
    $(LIBLISTS) $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS) $(ARCHIVE_LIBS)
schedsim/mj_schedsim: $(SIM_SRC:.c=.o) $(LIBSCHED) $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
TOOL_LIBS := $(LIBQR) $(LIBQCTL) $(LIBLISTFN) $(LIBDELIVER) $(LIBSCHED) $(LIBSMTP) $(LIBLISTS) \
    $(LIBCLUSTER) $(LIBSPOOL) $(LIBCOMMON)
# mj_enqueue linked dynamically, for valgrind (t/600-valgrind.bats): in the
# static binary valgrind cannot replace malloc and reports glibc's own
# start-up as errors; these are the very same objects.
t/tools/mj_enqueue_dyn: $(ENQ_SRC:.c=.o) $(LISTS_TABLE) $(CLUSTER_TABLE) \
    $(LIBSPOOL) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(ENQ_LIBS)
t/tools/mj_testsmtpd: $(SMTPD_SRC:.c=.o)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lssl -lcrypto
t/tools/preload_%.so: t/tools/preload_%.c
	$(CC) $(CPPFLAGS) -std=c11 $(WARN) $(OPT) -g -fPIC -shared -o $@ $< -ldl
t/tools/%: t/tools/%.c $(TOOL_LIBS)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(LISTS_LIBS) $(CLUSTER_LIBS) -lssl -lcrypto -lresolv

# SYSCONFDIR compiled in: the stamp changes only when the value does
common/settings_path.o: CPPFLAGS += -DMJQ_SYSCONFDIR='"$(SYSCONFDIR)"'
common/settings_path.o: common/sysconfdir.stamp
common/sysconfdir.stamp: FORCE
	@echo '$(SYSCONFDIR)' | cmp -s - $@ || echo '$(SYSCONFDIR)' >$@
.PHONY: FORCE
FORCE:

-include $(wildcard */*.d t/tools/*.d t/tools/testsmtpd/*.d)

# The two commands of the README.  Each first makes sure the packages it
# needs are there (installing them when run as root).
deps:
	@sh dev/deps.sh build
test:
	@sh dev/deps.sh test
	@sh t/check-bang
	@sh t/check-format
	@$(MAKE) --no-print-directory all
	@sh t/run
# make check: the fast lane, the suite less the files and tests tagged
# slow (t/README), three files at a time (MJQ_TEST_JOBS=N); make test
# runs them all, one file at a time, as CI does
check:
	@sh dev/deps.sh test
	@sh t/check-bang
	@sh t/check-format
	@$(MAKE) --no-print-directory all
	@sh t/run --fast

# make deps-graph: the include graph between folders, checked to point
# only down the layers (programs -> queuerun/ -> listfn/ deliver/ queuectl/ ->
# sched/ smtp/ lists/ cluster/ -> spool-layout/ -> common/) and to enter each
# library through its public header, and the file-level call graph (from the
# objects' symbols) of each folder in CALLGRAPH_DIRS, checked to have no
# cycle; every folder is shown, then a cycle in any fails the target.
# sched/ is left out on purpose: a pure library (no I/O, no clock reads,
# no globals) whose files are the sections of SCHEDULER_README and
# act on each other as qmgr's do (docs/architecture.md, "Source layout").
CALLGRAPH_DIRS = queuerun listfn deliver queuectl queueserv stsfetch members smtp lists cluster spool-layout archive
deps-graph: all
	@sh dev/deps-graph.sh
	@st=0; for d in $(CALLGRAPH_DIRS); do \
		echo "$$d/ call graph (file -> files it calls):"; \
		sh dev/callgraph.sh $$d || st=1; \
	done; exit $$st

demo:
	@sh dev/deps.sh build
	@$(MAKE) --no-print-directory all
	@sh dev/demo.sh

bench:
	@sh dev/deps.sh bench
	@$(MAKE) --no-print-directory all
	@for b in t/bench/*.sh; do bash $$b || exit 1; done

# make fuzz: every t/fuzz/fuzz_NAME.c is a libFuzzer target (clang), built
# with ASan and UBSan, run FUZZ_SECONDS on its corpus t/fuzz/corpus/NAME
# (new finds are kept there).  The library sources are compiled one object
# each under t/fuzz/bin/obj/ (with coverage, fuzzer-no-link) and archived,
# so a target links only what it uses, and a file another part is still
# writing does not stop the targets that never call it from linking.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
# (ADDR_SET_TAG_BITS=2: fuzz_subscribers meets addr_set's tag collisions.)
FUZZ_CFLAGS   = -std=c11 -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
                -DADDR_SET_TAG_BITS=2
FUZZ_OBJDIR   = t/fuzz/bin/obj
FUZZ_LIB_SRC := $(COMMON_SRC) $(SPOOL_SRC) $(SCHED_SRC) $(SMTP_SRC) \
                $(LISTS_SRC) $(CLUSTER_SRC) $(DELIVER_SRC) $(QCTL_SRC) $(LISTFN_SRC) $(QR_SRC) \
                $(filter-out enqueue/mj_enqueue.c,$(ENQ_SRC))
FUZZ_LIB_OBJ := $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(FUZZ_LIB_SRC))
FUZZ_LIB     := t/fuzz/bin/libmjqfuzz.a
FUZZ_TARGETS := $(patsubst t/fuzz/%.c,t/fuzz/bin/%,$(wildcard t/fuzz/fuzz_*.c))
# (html_text.c wants libxml2's headers here as in the plain build.)
$(FUZZ_OBJDIR)/lists/html_text.o: CPPFLAGS += $(shell pkg-config --cflags libxml-2.0)
$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
	    -MMD -MP -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
t/fuzz/bin/%: t/fuzz/%.c $(FUZZ_LIB)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	    -o $@ $< $(FUZZ_LIB) $(LDLIBS) $(LISTS_LIBS) $(CLUSTER_LIBS) -lresolv
-include $(wildcard $(FUZZ_OBJDIR)/*/*.d)
fuzz:
	@sh dev/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)
	@for f in $(FUZZ_TARGETS); do \
	    n=$${f##*/fuzz_}; mkdir -p t/fuzz/corpus/$$n; \
	    echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	    $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        t/fuzz/corpus/$$n 2>t/fuzz/bin/$$n.log || \
	        { tail -40 t/fuzz/bin/$$n.log; exit 1; }; \
	    grep -E 'stat::number_of_executed_units|stat::new_units_added' \
	        t/fuzz/bin/$$n.log; \
	done

# make fuzz-replay: the same targets with no clang and no libFuzzer: the
# library and each target built with $(FUZZ_REPLAY_CC) and the same
# sanitizers under $(FUZZ_REPLAY_DIR), each target linked with
# t/fuzz/replay.c (a main that gives it every file of a corpus once) and
# run over its corpus t/fuzz/corpus/NAME.  It fails when a target no
# longer builds or a seed crashes (t/640).
FUZZ_REPLAY_CC   ?= gcc
FUZZ_REPLAY_DIR  ?= t/fuzz/bin/replay
FUZZ_REPLAY_OBJ  := $(patsubst %.c,$(FUZZ_REPLAY_DIR)/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_REPLAY_LIB  := $(FUZZ_REPLAY_DIR)/libmjqfuzz.a
FUZZ_REPLAY_BINS := $(patsubst t/fuzz/%.c,$(FUZZ_REPLAY_DIR)/%,$(wildcard t/fuzz/fuzz_*.c))
$(FUZZ_REPLAY_DIR)/obj/lists/html_text.o: CPPFLAGS += $(shell pkg-config --cflags libxml-2.0)
$(FUZZ_REPLAY_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_REPLAY_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
$(FUZZ_REPLAY_LIB): $(FUZZ_REPLAY_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(FUZZ_REPLAY_DIR)/%: t/fuzz/%.c t/fuzz/replay.c $(FUZZ_REPLAY_LIB)
	$(FUZZ_REPLAY_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $< t/fuzz/replay.c \
	    $(FUZZ_REPLAY_LIB) $(LDLIBS) $(LISTS_LIBS) $(CLUSTER_LIBS) -lresolv
-include $(wildcard $(FUZZ_REPLAY_DIR)/obj/*/*.d)
fuzz-replay:
	@$(MAKE) --no-print-directory $(FUZZ_REPLAY_BINS)
	@st=0; for f in $(FUZZ_REPLAY_BINS); do \
	    n=$${f##*/fuzz_}; \
	    $$f t/fuzz/corpus/$$n || { echo "fuzz-replay: $$n failed"; st=1; }; \
	done; exit $$st

# make install: the programs, scripts, man pages, example configuration
# and init files; as root into the live system (no DESTDIR), then
# make setup: the mjq user and group, the spool, /var/lib/mjq, a first
# mjq.conf (scripts/mjq-setup, idempotent).
SBIN_PROGS = $(filter-out unsubscribe/mj_unsubscribe archsearch/mj_archsearch web/mj_listweb,$(PROGS))
INSTALLED_SBIN = $(notdir $(SBIN_PROGS)) mjq-newlist mjq-import mjq-setup mjq-unsubsecret \
	mjq-dkimkey
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
	    $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(INITDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/mjq \
	    $(DESTDIR)$(CGIDIR)
	install -m 0755 $(SBIN_PROGS) $(DESTDIR)$(SBINDIR)
	install -m 0755 unsubscribe/mj_unsubscribe archsearch/mj_archsearch web/mj_listweb $(DESTDIR)$(CGIDIR)
	install -m 0755 scripts/mjq-unsubsecret $(DESTDIR)$(SBINDIR)
	$(if $(MAN8),install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8)
	$(if $(MAN5),install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5)
	$(INSTALL_PATHS) scripts/init/mj_queueserv.service \
	    >$(DESTDIR)$(UNITDIR)/mj_queueserv.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/mj_queueserv.service
	$(INSTALL_PATHS) scripts/init/mj_queueserv.init \
	    >$(DESTDIR)$(INITDIR)/mj_queueserv
	chmod 0755 $(DESTDIR)$(INITDIR)/mj_queueserv
	install -m 0644 scripts/mjq.conf.example $(DESTDIR)$(SYSCONFDIR)/mjq/mjq.conf.example
	$(INSTALL_PATHS) scripts/mjq-newlist >$(DESTDIR)$(SBINDIR)/mjq-newlist
	chmod 0755 $(DESTDIR)$(SBINDIR)/mjq-newlist
	$(INSTALL_PATHS) scripts/mjq-import >$(DESTDIR)$(SBINDIR)/mjq-import
	chmod 0755 $(DESTDIR)$(SBINDIR)/mjq-import
	$(INSTALL_PATHS) scripts/mjq-setup >$(DESTDIR)$(SBINDIR)/mjq-setup
	chmod 0755 $(DESTDIR)$(SBINDIR)/mjq-setup
	$(INSTALL_PATHS) scripts/mjq-dkimkey >$(DESTDIR)$(SBINDIR)/mjq-dkimkey
	chmod 0755 $(DESTDIR)$(SBINDIR)/mjq-dkimkey
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then \
	    $(MAKE) --no-print-directory setup; \
	else \
	    echo "make install: then, as root, $(SBINDIR)/mjq-setup (make setup) makes the mjq user and directories"; \
	fi

setup:
	$(SBINDIR)/mjq-setup

# make uninstall: what make install put there; the mjq user, the spool,
# the lists and mjq.conf stay (they are the administrator's data)
uninstall:
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(INSTALLED_SBIN)) \
	    $(DESTDIR)$(CGIDIR)/mj_unsubscribe $(DESTDIR)$(CGIDIR)/mj_archsearch \
	    $(DESTDIR)$(CGIDIR)/mj_listweb
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(DESTDIR)$(UNITDIR)/mj_queueserv.service \
	    $(DESTDIR)$(INITDIR)/mj_queueserv \
	    $(DESTDIR)$(SYSCONFDIR)/mjq/mjq.conf.example
	-rmdir $(DESTDIR)$(SYSCONFDIR)/mjq 2>/dev/null

# make deb: the Debian package mjq_VERSION_ARCH.deb in DEB_OUT (the top of
# the checkout unless given), built with debhelper (debian/) from a copy
# of the tree in a temporary directory, so that the build's own make
# clean leaves this checkout's programs alone
DEB_OUT ?= .
deb:
	@sh dev/deps.sh deb
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	mkdir "$$tmp/mjq"; \
	tar -c --exclude=./.git --exclude='./*.deb' -f - . | tar -x -C "$$tmp/mjq"; \
	(cd "$$tmp/mjq" && $(MAKE) --no-print-directory clean >/dev/null && \
	    DEB_BUILD_OPTIONS="nocheck noddebs $(DEB_BUILD_OPTIONS)" \
	    dpkg-buildpackage -b -us -uc >../build.log 2>&1) || \
	    { tail -30 "$$tmp/build.log"; exit 1; }; \
	cp "$$tmp"/mjq_*.deb $(DEB_OUT)/; ls $(DEB_OUT)/mjq_*.deb

clean:
	rm -f */*.o */*.d */*.a */*.stamp $(PROGS) $(TOOLS) t/tools/*.d t/tools/mj_enqueue_dyn \
	    t/tools/testsmtpd/*.o t/tools/testsmtpd/*.d
	rm -rf t/fuzz/bin
