#!/usr/bin/python3
"""Sets up python-dbusmock's logind template for fingerlockd's seat tests, on a private bus.

    logind_seat.py ADDRESS setup
        waits for the mock's name, then gives it GetSessionByPID (the template has none): the
        session a process belongs to is the one named by FLK_LOGIND_SESSION in its environment
        (real logind reads the process's cgroup); a process without it belongs to no session.
    logind_seat.py ADDRESS session ID SEAT UID NAME local|remote
        adds a session (the seat's active one now, as the template makes it).
    logind_seat.py ADDRESS activate SEAT ID
        makes session ID the active one of SEAT; the seat's other sessions become "online".
"""
import sys
import time

import dbus

LOGIN1 = 'org.freedesktop.login1'
MANAGER = '/org/freedesktop/login1'
PROPERTIES = 'org.freedesktop.DBus.Properties'
SESSION = 'org.freedesktop.login1.Session'
SEAT = 'org.freedesktop.login1.Seat'

GET_SESSION_BY_PID = '''
# One statement per line, no comprehension: dbusmock runs this with exec and separate locals.
found = None
try:
    environ = open('/proc/%d/environ' % args[0], 'rb').read()
except OSError:
    environ = b''
for item in environ.split(b'\\0'):
    if item.startswith(b'FLK_LOGIND_SESSION='):
        found = item[len(b'FLK_LOGIND_SESSION='):].decode()
if found is None:
    raise dbus.exceptions.DBusException('PID %d does not belong to any known session' % args[0],
                                        name='org.freedesktop.login1.NoSessionForPID')
ret = dbus.ObjectPath('/org/freedesktop/login1/session/' + found)
'''


def main():
    bus = dbus.bus.BusConnection(sys.argv[1])
    deadline = time.time() + 20
    while not bus.name_has_owner(LOGIN1):
        if time.time() > deadline:
            sys.exit('the logind mock did not appear on the bus')
        time.sleep(0.05)
    mock = dbus.Interface(bus.get_object(LOGIN1, MANAGER), 'org.freedesktop.DBus.Mock')
    command = sys.argv[2]
    if command == 'setup':
        mock.AddMethod('org.freedesktop.login1.Manager', 'GetSessionByPID', 'u', 'o', GET_SESSION_BY_PID)
    elif command == 'session':
        session_id, seat, uid, name, where = sys.argv[3:8]
        path = mock.AddSession(session_id, seat, dbus.UInt32(int(uid)), name, True)
        session = bus.get_object(LOGIN1, path)
        session.Set(SESSION, 'Remote', dbus.Boolean(where == 'remote'), dbus_interface=PROPERTIES)
        activate(bus, seat, session_id)
    elif command == 'activate':
        activate(bus, sys.argv[3], sys.argv[4])
    else:
        sys.exit('unknown command ' + command)


def activate(bus, seat, session_id):
    seat_object = bus.get_object(LOGIN1, MANAGER + '/seat/' + seat)
    for other_id, path in seat_object.Get(SEAT, 'Sessions', dbus_interface=PROPERTIES):
        active = other_id == session_id
        session = bus.get_object(LOGIN1, path)
        session.Set(SESSION, 'Active', dbus.Boolean(active), dbus_interface=PROPERTIES)
        session.Set(SESSION, 'State', 'active' if active else 'online', dbus_interface=PROPERTIES)
    path = dbus.ObjectPath(MANAGER + '/session/' + session_id)
    seat_object.Set(SEAT, 'ActiveSession', dbus.Struct((session_id, path), signature='so'),
                    dbus_interface=PROPERTIES)


if __name__ == '__main__':
    main()
