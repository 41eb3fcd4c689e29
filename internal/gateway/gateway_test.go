package gateway

import (
	"bufio"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParse: the agent's URL keeps a host name (mapped in /etc/hosts) and
// replaces an address by 127.0.0.1; the port defaults to the scheme's;
// credentials, IPv6 literals, other schemes and bad ports are refused.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		raw, target, listen, agent, hosts string
	}{
		{"http://127.0.0.1:8080/v1", "127.0.0.1:8080", "127.0.0.1:8080", "http://127.0.0.1:8080/v1", ""},
		{"https://models.example/v1", "models.example:443", "127.0.0.1:443", "https://models.example/v1", "models.example:127.0.0.1"},
		{"http://10.1.2.3", "10.1.2.3:80", "127.0.0.1:80", "http://127.0.0.1", ""},
		{"http://10.1.2.3:9000/api?x=1", "10.1.2.3:9000", "127.0.0.1:9000", "http://127.0.0.1:9000/api?x=1", ""},
		{"http://localhost:4000", "localhost:4000", "127.0.0.1:4000", "http://localhost:4000", ""},
	} {
		g, err := Parse(c.raw)
		if err != nil {
			t.Errorf("%s: %v", c.raw, err)
			continue
		}
		if g.Target() != c.target || g.Listen() != c.listen || g.AgentURL != c.agent || g.HostsEntry() != c.hosts {
			t.Errorf("%s: target %s listen %s agent %s hosts %q", c.raw, g.Target(), g.Listen(), g.AgentURL, g.HostsEntry())
		}
	}
	for raw, want := range map[string]string{
		"http://user:pw@gw:80": "user or password",
		"http://[::1]:80":      "IPv6",
		"ftp://gw":             "http or https",
		"http://gw:0":          "port",
		"http://gw:70000":      "port",
		"http:///nohost":       "no host",
		"gw.example:8080":      "http or https",
	} {
		if _, err := Parse(raw); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s: error %v, want one saying %q (and never the password)", raw, err, want)
		}
	}
}

// TestForward: a connection to the forwarder reaches the target and the
// target's answer comes back; a target that refuses is counted as a dial
// failure; Close ends a connection still open and returns the counts.
func TestForward(t *testing.T) {
	srv, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				io.WriteString(c, "gateway says "+line)
			}()
		}
	}()
	// The forwarder listens in srb's own namespace, entered as another
	// process's would be: on 127.0.0.1 and, this namespace's loopback
	// having IPv6 (as a Docker container's does), on [::1] at the same
	// port, so that "localhost" reaches it whichever address it resolves
	// to.
	lns, err := listenInNetNS("/proc/self/ns/net", "127.0.0.1:0", "[::1]:0")
	if err != nil {
		if os.Geteuid() != 0 {
			t.Skipf("setns needs root: %v", err)
		}
		t.Fatal(err)
	}
	ln := lns[0]
	f := Serve(srv.Addr().String(), lns...)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	want := []string{"127.0.0.1:" + port}
	if hasIPv6Loopback(t) {
		want = append(want, "[::1]:"+port)
	}
	if got := f.Addrs(); !slices.Equal(got, want) {
		t.Errorf("listens on %q, want %q", got, want)
	}
	for _, addr := range want {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "hello\n")
		got, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || got != "gateway says hello\n" {
			t.Fatalf("%s: answer %q, %v", addr, got, err)
		}
		c.Close()
	}

	// A second forwarder to a closed port: the agent's connection is
	// closed at once.
	dead, _ := net.Listen("tcp4", "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	ln2, _ := net.Listen("tcp4", "127.0.0.1:0")
	f2 := Serve(deadAddr, ln2)
	c2, err := net.Dial("tcp4", ln2.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c2.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("a connection to a refused gateway read %d, %v", n, err)
	}
	c2.Close()
	if st := f2.Close(); st.Connections != 1 || st.DialFailures != 1 {
		t.Errorf("refused gateway: %+v", st)
	}

	// A connection still open when the forwarder closes is ended.
	c3, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c3, "x")
	st := f.Close()
	if _, err := io.ReadAll(c3); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("after Close: %v", err)
	}
	if n := int64(len(want)); st.Connections != n+1 || st.DialFailures != 0 || st.BytesToGateway < 6*n || st.BytesFromGateway != n*int64(len("gateway says hello\n")) {
		t.Errorf("stats %+v", st)
	}
	if _, err := net.Dial("tcp4", ln.Addr().String()); err == nil {
		t.Error("the forwarder still accepts after Close")
	}
}

// hasIPv6Loopback says whether this namespace's loopback has ::1
// (/proc/net/if_inet6 lists it).
func hasIPv6Loopback(t *testing.T) bool {
	b, err := os.ReadFile("/proc/net/if_inet6")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[0] == "00000000000000000000000000000001" && f[5] == "lo" {
			return true
		}
	}
	return false
}

// TestListenWithoutIPv6: where the IPv6 address cannot be had (a namespace
// whose loopback has no ::1; here an address no interface holds), the
// forwarder listens on IPv4 alone rather than fail; an IPv4 address that
// cannot be had is an error.
func TestListenWithoutIPv6(t *testing.T) {
	lns, err := listenBoth("127.0.0.1:0", "[fd00:5eb::1]:0")
	if err != nil || len(lns) != 1 || lns[0].Addr().(*net.TCPAddr).IP.To4() == nil {
		t.Fatalf("listeners %v, %v: want the IPv4 one alone", lns, err)
	}
	lns[0].Close()
	if lns, err := listenBoth("192.0.2.1:0", "[::1]:0"); err == nil {
		t.Errorf("listened on %v with an IPv4 address no interface holds", lns)
	}
}
