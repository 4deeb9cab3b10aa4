/* ctlclient.h - `satin-wanem ctl ...`, the control socket's client side. */
#ifndef WANEM_CTLCLIENT_H
#define WANEM_CTLCLIENT_H

/* argv[0] is "ctl".  Returns the exit status. */
int wanem_ctl_main(int argc, char **argv);

#endif
